import { describe, expect, test } from "bun:test";
import type { PodStatus } from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createActivePods, killPodNow } from "../../../src/podsync/active-pods.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { PodWorkersRef } from "../../../src/podsync/pod-workers-ref.ts";
import type { UpdatePodOptions } from "../../../src/podworkers/index.ts";
import { configPod } from "./fakes.ts";

describe("createActivePods (GetActivePods)", () => {
  test("a pod asked to terminate, or in a terminal phase, is not active", () => {
    const podManager = new PodManager(() => 0);
    for (const name of ["running", "terminating", "succeeded", "failed", "pending"]) podManager.upsert(configPod(name));
    const phases: Record<string, PodStatus["phase"]> = { "uid-succeeded": "Succeeded", "uid-failed": "Failed", "uid-running": "Running" };
    const active = createActivePods({
      podManager,
      statusManager: { getPodPhase: (uid) => phases[uid] },
      workers: { isPodTerminationRequested: (uid) => uid === "uid-terminating" },
    });
    expect(active().map((p) => p.metadata.name)).toEqual(["pending", "running"]);
  });
});

describe("killPodNow", () => {
  test("asks the pod's worker for a kill with the grace and eviction given, and resolves when it completed", async () => {
    const clock = new FakeClock();
    const updates: UpdatePodOptions[] = [];
    const statusFn = () => {};
    const killed = killPodNow({ podWorkers: { updatePod: (o) => updates.push(o) }, clock }, configPod("a"), 5, statusFn, true);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ updateType: "kill", killPodOptions: { evict: true, gracePeriodSecondsOverride: 5, podStatusFn: statusFn } });
    updates[0]?.killPodOptions?.onCompleted?.();
    await expect(killed).resolves.toBeUndefined();
  });

  test("gives up after max(grace × 1.5 s, 10 s), naming the pod", async () => {
    const clock = new FakeClock();
    const short = killPodNow({ podWorkers: { updatePod: () => {} }, clock }, configPod("a"), 2, () => {}, false);
    const long = killPodNow({ podWorkers: { updatePod: () => {} }, clock }, configPod("b"), 20, () => {}, false);
    let longDone = false;
    long.catch(() => (longDone = true));
    await clock.advance(10_000);
    await expect(short).rejects.toThrow("timeout waiting to kill pod default/a");
    expect(longDone).toBe(false);
    await clock.advance(20_000);
    await expect(long).rejects.toThrow("timeout waiting to kill pod default/b");
  });
});

describe("PodWorkersRef (the pod workers, for the parts made before them)", () => {
  const workers = () => {
    const updates: UpdatePodOptions[] = [];
    return { updates, updatePod: (o: UpdatePodOptions) => void updates.push(o), isPodTerminationRequested: (uid: string) => uid === "uid-a" };
  };

  test("before the workers are connected no pod is terminating and a sync request is dropped", () => {
    const ref = new PodWorkersRef(new FakeClock());
    expect(ref.isPodTerminationRequested("uid-a")).toBe(false);
    ref.syncPods([configPod("a")]);
    const w = workers();
    ref.connect(w);
    expect(w.updates).toEqual([]);
  });

  test("once connected, it asks the workers and sends each pod a sync stamped with the clock", () => {
    const clock = new FakeClock();
    const ref = new PodWorkersRef(clock);
    const w = workers();
    ref.connect(w);
    expect(ref.isPodTerminationRequested("uid-a")).toBe(true);
    expect(ref.isPodTerminationRequested("uid-b")).toBe(false);
    const relisted: string[] = [];
    ref.syncPodAndRelist(configPod("b"), (uid) => relisted.push(uid));
    expect(w.updates).toEqual([{ updateType: "sync", pod: configPod("b"), startTime: clock.now() }]);
    expect(relisted).toEqual(["uid-b"]);
  });

  test("a second connection is a wiring mistake", () => {
    const ref = new PodWorkersRef(new FakeClock());
    ref.connect(workers());
    expect(() => ref.connect(workers())).toThrow("the pod workers are connected already");
  });
});
