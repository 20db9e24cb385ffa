// spec.activeDeadlineSeconds (active_deadline.go and its TestActiveDeadlineHandler): when a pod is
// past its deadline, and the event and words its eviction carries. The status it makes is pinned in
// test/unit/status/generate.test.ts, the sync tick in sync-loop.test.ts.
import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { createActiveDeadlineHandler } from "../../../src/podsync/active-deadline.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { configPod } from "./fakes.ts";

const MESSAGE = "Pod was active on the node longer than the specified deadline";

function setup() {
  const clock = new FakeClock();
  const events: string[] = [];
  const managed = new Map<string, string>();
  const handler = createActiveDeadlineHandler({
    podStatus: (uid) => (managed.has(uid) ? { startTime: managed.get(uid) } : undefined),
    recorder: { event: (ref, type, reason, message) => events.push(`${ref.name} ${type} ${reason} ${message}`) },
    clock,
  });
  const started = (secondsAgo: number) => new Date(clock.now() - secondsAgo * 1000).toISOString();
  return { clock, events, managed, handler, started };
}

function pod(name: string, deadline: number | undefined, startTime: string | undefined): Pod {
  const p = configPod(name);
  if (deadline !== undefined) p.spec.activeDeadlineSeconds = deadline;
  if (startTime !== undefined) p.status = { startTime };
  return p;
}

describe("active deadline handler", () => {
  const cases: { name: string; deadline?: number; startedSecondsAgo?: number; expected: boolean }[] = [
    { name: "past its deadline", deadline: 30, startedSecondsAgo: 60, expected: true },
    { name: "exactly at its deadline", deadline: 60, startedSecondsAgo: 60, expected: true },
    { name: "not yet at its deadline", deadline: 120, startedSecondsAgo: 60, expected: false },
    { name: "no deadline", startedSecondsAgo: 60, expected: false },
    { name: "no start time", deadline: 120, expected: false },
    { name: "no start time and a deadline of 1 s", deadline: 1, expected: false },
  ];
  for (const k of cases) {
    test(k.name, () => {
      const s = setup();
      const p = pod("p", k.deadline, k.startedSecondsAgo === undefined ? undefined : s.started(k.startedSecondsAgo));
      expect(s.handler.shouldSync(p)).toBe(k.expected);
      const evict = s.handler.shouldEvict(p);
      expect(evict).toEqual(k.expected ? { evict: true, reason: "DeadlineExceeded", message: MESSAGE } : { evict: false });
      expect(s.events).toEqual(k.expected ? [`p Normal DeadlineExceeded ${MESSAGE}`] : []);
    });
  }

  test("the status bunlet set (the status manager's startTime) wins over the pod's own", () => {
    const s = setup();
    const p = pod("p", 30, s.started(10));
    expect(s.handler.shouldSync(p)).toBe(false);
    s.managed.set("uid-p", s.started(31));
    expect(s.handler.shouldSync(p)).toBe(true);
  });

  test("time moving on the injected clock crosses the deadline; a deadline updated on a running pod counts at once", async () => {
    const s = setup();
    const p = pod("p", 600, s.started(0));
    expect(s.handler.shouldSync(p)).toBe(false);
    await s.clock.advance(5_000);
    expect(s.handler.shouldSync(p)).toBe(false);
    p.spec.activeDeadlineSeconds = 5;
    expect(s.handler.shouldSync(p)).toBe(true);
  });
});
