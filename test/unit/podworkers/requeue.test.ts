import { describe, expect, test } from "bun:test";
import { flushMicrotasks } from "../../../src/lib/testing.ts";
import { requeueDelay } from "../../../src/podworkers/requeue.ts";
import { Reason, SyncError } from "../../../src/runtime/index.ts";
import { workerPod, setupWorkers } from "./helpers.ts";

const now = 1_000_000;
const base = { now, resyncIntervalMs: 60_000, backOffPeriodMs: 10_000 };
const low = () => 0;
const high = () => 0.999;

describe("requeueDelay: when a pod is synced again", () => {
  const cases: { name: string; phaseTransition?: boolean; error?: unknown; random: () => number; resyncIntervalMs?: number; expected: number }[] = [
    { name: "success: the resync interval", random: low, expected: 60_000 },
    { name: "success: up to 50% jitter on the resync interval", random: high, expected: 60_000 * 1.4995 },
    { name: "a lifecycle step: at once, without jitter", phaseTransition: true, random: high, expected: 0 },
    { name: "a lifecycle step wins over an error", phaseTransition: true, error: new Error("x"), random: low, expected: 0 },
    { name: "an error: the 10 s backoff", error: new Error("boom"), random: low, expected: 10_000 },
    { name: "an error: up to 50% jitter on the backoff", error: new Error("boom"), random: high, expected: 14_995 },
    { name: "network not ready: about a second", error: new SyncError(Reason.NetworkNotReady, "network is not ready: cni"), random: low, expected: 1_000 },
    { name: "a sync error without backoff: the 10 s backoff", error: new SyncError(Reason.ErrImagePull, "not found"), random: low, expected: 10_000 },
    { name: "a backoff error expiring within the retry: its expiry", error: new SyncError("CrashLoopBackOff", "back-off", now + 8_000), random: low, expected: 8_000 },
    {
      name: "a backoff error expiring within the retry: its expiry, not jittered",
      error: new SyncError("CrashLoopBackOff", "back-off", now + 12_000),
      random: high,
      expected: 12_000,
    },
    {
      name: "a long backoff: the 10 s retry, so status is regenerated during the wait",
      error: new SyncError("CrashLoopBackOff", "back-off", now + 40_000),
      random: low,
      expected: 10_000,
    },
    {
      name: "a long backoff: the retry is jittered up to 50%",
      error: new SyncError("ImagePullBackOff", "back-off", now + 40_000),
      random: high,
      expected: 14_995,
    },
    {
      name: "a backoff error past its expiry: at once",
      error: new SyncError("ImagePullBackOff", "back-off", now - 5_000),
      random: high,
      expected: 0,
    },
    {
      name: "a backoff error with a short resync interval: clamped to it",
      error: new SyncError("CrashLoopBackOff", "back-off", now + 300_000),
      random: low,
      resyncIntervalMs: 5_000,
      expected: 5_000,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const delay = requeueDelay({ ...base, resyncIntervalMs: c.resyncIntervalMs ?? base.resyncIntervalMs, phaseTransition: c.phaseTransition ?? false, error: c.error, random: c.random });
      expect(delay).toBeCloseTo(c.expected, 6);
    });
  }
});

describe("pod workers: requeue after each sync", () => {
  test("a successful sync is due again after 60–90 s", async () => {
    for (const [random, expected] of [
      [() => 0, 60_000],
      [() => 0.5, 75_000],
    ] as const) {
      const { workers, workQueue, clock } = setupWorkers({ random });
      workers.updatePod({ updateType: "create", pod: workerPod("a") });
      await workers.whenIdle();
      expect(workQueue.dueAt("a")).toBe(clock.now() + expected);
    }
  });

  test("a failed sync is due again after 10–15 s", async () => {
    const { workers, workQueue, clock, syncer } = setupWorkers({ random: () => 0.5 });
    syncer.next("syncPod", { error: new Error("CreateContainer: image not found") });
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    expect(workQueue.dueAt("a")).toBe(clock.now() + 12_500);
  });

  test("a sync that hits a long crash-loop backoff is synced again every 10–15 s during the wait", async () => {
    const { workers, workQueue, clock, syncer } = setupWorkers({ random: () => 0.5 });
    syncer.next("syncPod", { error: new SyncError("CrashLoopBackOff", "back-off 40s", clock.now() + 40_000) });
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    expect(workQueue.dueAt("a")).toBe(clock.now() + 12_500);
  });

  test("a sync that hits a short crash-loop backoff is due again when the backoff expires", async () => {
    const { workers, workQueue, clock, syncer } = setupWorkers({ random: () => 0.5 });
    syncer.next("syncPod", { error: new SyncError("CrashLoopBackOff", "back-off 10s", clock.now() + 7_000) });
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    expect(workQueue.dueAt("a")).toBe(clock.now() + 7_000);
  });

  test("a sync that finds the pod terminal is due again at once (phase transition)", async () => {
    const { workers, workQueue, clock, syncer } = setupWorkers();
    syncer.next("syncPod", { isTerminal: true });
    syncer.holdAll("syncTerminatingPod");
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await syncer.waitForCalls(1);
    await flushMicrotasks();
    expect(workQueue.dueAt("a")).toBe(clock.now());
    expect(workQueue.getWork()).toEqual(["a"]);
  });
});
