import { describe, expect, test } from "bun:test";
import { workerPod, makeRuntimePod, setupWorkers } from "./helpers.ts";

describe("pod workers: syncKnownPods (housekeeping)", () => {
  test("a finished worker of a pod no longer desired is forgotten", async () => {
    const { workers, syncer, settle } = setupWorkers();
    const pod = workerPod("a");
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    workers.updatePod({ updateType: "kill", pod });
    await settle();
    expect(workers.shouldPodBeFinished("a")).toBe(true);

    // Still desired (e.g. the REMOVE has not reached the config yet): the history stays.
    expect(workers.syncKnownPods([pod]).get("a")).toEqual({ state: "TerminatedPod", orphan: false, hasConfig: true, static: false });
    expect(workers.knownUids()).toEqual(["a"]);

    expect(workers.syncKnownPods([]).size).toBe(0);
    expect(workers.knownUids()).toEqual([]);
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
  });

  test("a running pod that is no longer desired is terminated by its worker", async () => {
    const { workers, syncer, settle } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("a", { grace: 12 }) });
    await workers.whenIdle();
    const known = workers.syncKnownPods([]);
    expect(known.get("a")).toEqual({ state: "TerminatingPod", orphan: true, hasConfig: true, static: false });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
    expect(syncer.calls[1]!.gracePeriodSeconds).toBe(12);
    expect(workers.shouldPodContentBeRemoved("a")).toBe(true);
    expect(workers.syncKnownPods([]).size).toBe(0);
  });

  test("a pod never started and no longer desired is dropped without any sync", async () => {
    const { workers, syncer } = setupWorkers();
    const pod = workerPod("a");
    workers.updatePod({ updateType: "create", pod });
    // Housekeeping runs before the worker got to the pod.
    expect(workers.syncKnownPods([]).size).toBe(0);
    await workers.whenIdle();
    expect(syncer.calls).toHaveLength(0);
    expect(workers.knownUids()).toEqual([]);
  });

  test("unknown UIDs: could be running until the first syncKnownPods, then are treated as gone", () => {
    const { workers } = setupWorkers();
    expect(workers.couldHaveRunningContainers("x")).toBe(true);
    expect(workers.shouldPodRuntimeBeRemoved("x")).toBe(false);
    expect(workers.shouldPodContentBeRemoved("x")).toBe(false);
    expect(workers.shouldPodContainersBeTerminating("x")).toBe(false);
    workers.syncKnownPods([]);
    expect(workers.couldHaveRunningContainers("x")).toBe(false);
    expect(workers.shouldPodRuntimeBeRemoved("x")).toBe(true);
    expect(workers.shouldPodContentBeRemoved("x")).toBe(true);
    expect(workers.shouldPodContainersBeTerminating("x")).toBe(true);
    expect(workers.isPodTerminationRequested("x")).toBe(false);
    expect(workers.isPodKnownTerminated("x")).toBe(false);
  });

  test("a create for a terminating UID restarts the pod once housekeeping forgot the finished worker", async () => {
    const { workers, syncer, settle, relistUntil } = setupWorkers();
    const pod = workerPod("a", { static: true });
    syncer.holdAll("syncTerminatingPod");
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    workers.updatePod({ updateType: "kill", pod });
    await relistUntil(() => syncer.calls.length >= 2, "the terminating sync");
    expect(syncer.last().method).toBe("syncTerminatingPod");

    // The same UID comes back (a static pod manifest restored): remembered, not acted on.
    workers.updatePod({ updateType: "create", pod });
    expect(workers.syncKnownPods([pod]).get("a")?.state).toBe("TerminatingPod");

    syncer.always("syncTerminatingPod", {});
    syncer.last().release();
    await settle();
    expect(workers.shouldPodBeFinished("a")).toBe(true);

    // Still desired, but a restart was requested: the finished history is dropped...
    expect(workers.syncKnownPods([pod]).has("a")).toBe(false);
    // ...and the caller's next create starts the pod afresh.
    workers.updatePod({ updateType: "create", pod });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a", "syncPod:a:create"]);
    expect(workers.isPodTerminationRequested("a")).toBe(false);
  });

  test("a runtime-only kill for a known pod uses the pod's spec and terminates it normally", async () => {
    const { workers, syncer, settle } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("a", { grace: 9 }) });
    await workers.whenIdle();
    workers.updatePod({ updateType: "kill", runningPod: makeRuntimePod("a"), killPodOptions: { gracePeriodSecondsOverride: 1 } });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
    expect(syncer.calls[1]!.gracePeriodSeconds).toBe(1);
  });
});
