// The QoS container manager's periodic update: once a minute over the active pods, a failure
// logged and retried the next minute, and nothing after the signal aborts.
import { expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { QOS_UPDATE_INTERVAL_MS, runQOSUpdates } from "../../../src/cm/qos-updates.ts";
import { createMemoryLogger, FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";

function setup(fail: (call: number) => boolean = () => false) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const calls: { pods: string[]; allocatableMemory: bigint }[] = [];
  const pods = [{ metadata: { name: "a", uid: "a" } } as Pod];
  const cm = {
    updateQOSCgroups(active: readonly Pod[], allocatableMemory: bigint) {
      calls.push({ pods: active.map((p) => p.metadata.name!), allocatableMemory });
      if (fail(calls.length)) throw new Error("write /sys/fs/cgroup/kubepods/burstable/cpu.weight: EBUSY");
    },
  };
  const stop = new AbortController();
  const running = runQOSUpdates({ cm, activePods: () => pods, allocatableMemory: 1n << 30n, clock, log }, stop.signal);
  return { clock, log, calls, stop, running };
}

test("the QoS tiers are updated from the active pods once a minute, not before", async () => {
  const s = setup();
  await s.clock.advance(QOS_UPDATE_INTERVAL_MS - 1);
  expect(s.calls).toEqual([]);
  await s.clock.advance(1);
  expect(s.calls).toEqual([{ pods: ["a"], allocatableMemory: 1n << 30n }]);
  await s.clock.advance(QOS_UPDATE_INTERVAL_MS);
  expect(s.calls).toHaveLength(2);
  expect(QOS_UPDATE_INTERVAL_MS).toBe(60_000);
  s.stop.abort();
  await s.running;
});

test("a failed update is logged as the kubelet logs it and the next minute tries again", async () => {
  const s = setup((call) => call === 1);
  await s.clock.advance(QOS_UPDATE_INTERVAL_MS);
  expect(s.log.lines.map((l) => [l.level, l.msg])).toEqual([["info", "Failed to reserve QoS requests"]]);
  await s.clock.advance(QOS_UPDATE_INTERVAL_MS);
  expect(s.calls).toHaveLength(2);
  s.stop.abort();
  await s.running;
});

test("the loop ends when its signal aborts, and updates nothing after", async () => {
  const s = setup();
  s.stop.abort();
  await s.running;
  await s.clock.advance(5 * QOS_UPDATE_INTERVAL_MS);
  await flushMicrotasks();
  expect(s.calls).toEqual([]);
  expect(s.clock.pending).toBe(0);
});
