import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { createMetrics } from "../../../src/metrics/index.ts";
import type { Pod, PodStatus } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { ShutdownManager, type Logind } from "../../../src/shutdown/manager.ts";
import { NODE_SHUTDOWN_MESSAGE, NODE_SHUTDOWN_REASON, parseInhibitDelayMaxMs, parsePrepareForShutdown, podGracePeriod, shutdownGroups } from "../../../src/shutdown/policy.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (name: string, priority?: number, grace?: number): Pod => makePod({ name, namespace: "default", metadata: { uid: name }, spec: { priority, terminationGracePeriodSeconds: grace } });

describe("shutdownGroups (the kubelet's two groups without shutdownGracePeriodByPodPriority)", () => {
  test("ordinary pods get shutdownGracePeriod − shutdownGracePeriodCriticalPods, critical pods the rest, in that order", () => {
    const groups = shutdownGroups([pod("web"), pod("dns", 2_000_000_000), pod("batch", 10)], 30_000, 10_000);
    expect(groups.map((g) => [g.pods.map((p) => p.metadata.name), g.gracePeriodSeconds])).toEqual([
      [["web", "batch"], 20],
      [["dns"], 10],
    ]);
  });
  test("an empty group is left out", () => expect(shutdownGroups([pod("web")], 30_000, 0).map((g) => g.gracePeriodSeconds)).toEqual([30]));
  test("a pod's own shorter grace period wins", () => {
    expect(podGracePeriod(pod("a", 0, 5), 20)).toBe(5);
    expect(podGracePeriod(pod("a", 0, 60), 20)).toBe(20);
    expect(podGracePeriod(pod("a"), 20)).toBe(20);
  });
});

describe("reading logind", () => {
  test("PrepareForShutdown from gdbus monitor", () => {
    expect(parsePrepareForShutdown("/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForShutdown (true,)")).toBe(true);
    expect(parsePrepareForShutdown("/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForShutdown (false,)")).toBe(false);
    expect(parsePrepareForShutdown("/org/freedesktop/login1: org.freedesktop.login1.Manager.SessionNew ('3', objectpath '/x')")).toBeUndefined();
  });
  test("InhibitDelayMaxUSec from busctl", () => {
    expect(parseInhibitDelayMaxMs("t 5000000\n")).toBe(5000);
    expect(parseInhibitDelayMaxMs("garbage")).toBeUndefined();
  });
});

/** A logind that records what bunlet asked and lets the test announce a shutdown. */
function fakeLogind(opts: { unavailable?: string; delayMs?: number } = {}) {
  const calls: string[] = [];
  let announce: ((active: boolean) => void) | undefined;
  let delayMs = opts.delayMs ?? 5000;
  const stopped = Promise.withResolvers<void>();
  const logind: Logind = {
    unavailableReason: () => opts.unavailable,
    readInhibitDelayMaxMs: () => delayMs,
    setInhibitDelayMax: (s) => {
      calls.push(`setInhibitDelayMax ${s}`);
      delayMs = s * 1000;
    },
    acquireInhibitorLock: () => {
      calls.push("lock");
      return { release: () => calls.push("release") };
    },
    monitorShutdown: (onPrepare, signal) => {
      announce = onPrepare;
      signal.addEventListener("abort", () => stopped.resolve(), { once: true });
      return stopped.promise;
    },
  };
  return { logind, calls, announce: (active: boolean) => announce!(active) };
}

describe("ShutdownManager", () => {
  test("without logind: one clear line, nothing else", async () => {
    const log = createMemoryLogger();
    const fake = fakeLogind({ unavailable: "no system bus (/run/dbus/system_bus_socket)" });
    const m = new ShutdownManager({ logind: fake.logind, activePods: () => [], killPod: async () => {}, clock: new FakeClock(), log }, { gracePeriodMs: 30_000, criticalGracePeriodMs: 10_000 });
    await m.run(new AbortController().signal);
    expect(fake.calls).toEqual([]);
    expect(log.lines.map((e) => e.msg)).toEqual(["Graceful node shutdown is not available: pods are not stopped before this node shuts down"]);
  });

  test("shutdownGracePeriod 0: off, not even a line", async () => {
    const log = createMemoryLogger();
    const fake = fakeLogind();
    await new ShutdownManager({ logind: fake.logind, activePods: () => [], killPod: async () => {}, clock: new FakeClock(), log }, { gracePeriodMs: 0, criticalGracePeriodMs: 0 }).run(new AbortController().signal);
    expect(fake.calls).toEqual([]);
    expect(log.lines).toEqual([]);
  });

  test("a shutdown stops ordinary pods, then critical ones, each Failed/Terminated, then releases the lock", async () => {
    const fake = fakeLogind({ delayMs: 5000 });
    const killed: [string, number, PodStatus][] = [];
    const stop = new AbortController();
    const m = new ShutdownManager(
      {
        logind: fake.logind,
        activePods: () => [pod("dns", 2_000_000_000), pod("web", 0, 5)],
        killPod: async (p, grace, statusFn) => {
          const status: PodStatus = { phase: "Running" };
          statusFn(status);
          killed.push([p.metadata.name!, grace, status]);
        },
        clock: new FakeClock(),
        log: createMemoryLogger(),
      },
      { gracePeriodMs: 30_000, criticalGracePeriodMs: 10_000 },
    );
    const running = m.run(stop.signal);
    await Bun.sleep(0);
    expect(fake.calls).toEqual(["setInhibitDelayMax 30", "lock"]);
    fake.announce(true);
    await Bun.sleep(0);
    await Bun.sleep(0);
    expect(killed.map(([n, g]) => [n, g])).toEqual([
      ["web", 5],
      ["dns", 10],
    ]);
    expect(killed[0][2]).toMatchObject({ phase: "Failed", reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE });
    expect(killed[0][2].conditions?.[0]).toMatchObject({ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" });
    expect(fake.calls).toEqual(["setInhibitDelayMax 30", "lock", "release"]);
    expect(m.shutdownStatus()).toBe("node is shutting down");
    fake.announce(false);
    await Bun.sleep(0);
    expect(fake.calls).toEqual(["setInhibitDelayMax 30", "lock", "release", "lock"]);
    expect(m.shutdownStatus()).toBeUndefined();
    stop.abort();
    await running;
    expect(fake.calls.at(-1)).toBe("release");
  });

  test("the shutdown's start and end go to graceful_node_shutdown_state and the gauges; the next start shows them again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bunlet-shutdown-"));
    try {
      const path = join(dir, "graceful_node_shutdown_state");
      const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
      const start = clock.now() / 1000;
      const run = async (metrics: ReturnType<typeof createMetrics>, work: (fake: ReturnType<typeof fakeLogind>) => Promise<void>) => {
        const fake = fakeLogind({ delayMs: 30_000 });
        const stop = new AbortController();
        const m = new ShutdownManager(
          {
            logind: fake.logind,
            activePods: () => [pod("web", 0, 5)],
            killPod: async () => clock.advance(3000),
            clock,
            log: createMemoryLogger(),
            state: { path, metrics },
          },
          { gracePeriodMs: 30_000, criticalGracePeriodMs: 10_000 },
        );
        const running = m.run(stop.signal);
        await Bun.sleep(0);
        await work(fake);
        stop.abort();
        await running;
      };
      const gauges = async (metrics: ReturnType<typeof createMetrics>) => [
        (await metrics.gracefulShutdownStartTime.get()).values[0]?.value,
        (await metrics.gracefulShutdownEndTime.get()).values[0]?.value,
      ];
      const before = createMetrics(new Registry());
      await run(before, async (fake) => {
        fake.announce(true);
        for (let i = 0; i < 5; i++) await Bun.sleep(0);
      });
      expect(await gauges(before)).toEqual([start, start + 3]);
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ startTime: "2026-01-01T12:00:00.000Z", endTime: "2026-01-01T12:00:03.000Z" });
      // After the reboot: the gauges show the last shutdown before any new one.
      const after = createMetrics(new Registry());
      await run(after, async () => {});
      expect(await gauges(after)).toEqual([start, start + 3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
