import { describe, expect, test } from "bun:test";
import type { PodStatus } from "../../../src/api/index.ts";
import { workerPod, makeRuntimePod, setupWorkers } from "./helpers.ts";

describe("pod workers: syncing → terminating → terminated → finished", () => {
  test("a kill moves the pod through syncTerminatingPod and syncTerminatedPod, then the worker is finished", async () => {
    const { workers, syncer, settle } = setupWorkers();
    const pod = workerPod("a", { grace: 30 });
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    expect(workers.isPodTerminationRequested("a")).toBe(false);

    workers.updatePod({ updateType: "kill", pod });
    expect(workers.isPodTerminationRequested("a")).toBe(true);
    expect(workers.couldHaveRunningContainers("a")).toBe(true);
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
    expect(syncer.calls[1]!.gracePeriodSeconds).toBe(30);
    expect(workers.isPodKnownTerminated("a")).toBe(true);
    expect(workers.couldHaveRunningContainers("a")).toBe(false);
    expect(workers.shouldPodContainersBeTerminating("a")).toBe(true);
    expect(workers.shouldPodBeFinished("a")).toBe(true);

    // A finished UID takes no more updates until housekeeping forgets it.
    workers.updatePod({ updateType: "sync", pod });
    await settle();
    expect(syncer.calls).toHaveLength(3);
  });

  test("a kill is never overwritten: later updates coalesced with it still terminate the pod", async () => {
    const { workers, syncer, settle } = setupWorkers();
    const pod = workerPod("a");
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    workers.updatePod({ updateType: "kill", pod });
    workers.updatePod({ updateType: "update", pod });
    workers.updatePod({ updateType: "sync", pod });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
  });

  test("a running sync is cancelled through its AbortSignal when the pod starts terminating", async () => {
    const { workers, syncer, settle, relistUntil } = setupWorkers();
    syncer.next("syncPod", "hold");
    const pod = workerPod("a");
    workers.updatePod({ updateType: "create", pod });
    await syncer.waitForCalls(1);
    const running = syncer.last();
    expect(running.signal.aborted).toBe(false);
    workers.updatePod({ updateType: "kill", pod });
    expect(running.signal.aborted).toBe(true);
    await relistUntil(() => syncer.calls.length >= 2, "a second syncer call");
    expect(syncer.last().method).toBe("syncTerminatingPod");
    expect(syncer.last().signal.aborted).toBe(false);
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
  });

  test("the grace period only shrinks, and never goes below 1 s", async () => {
    const { workers, syncer, settle, relistUntil } = setupWorkers();
    syncer.holdAll("syncTerminatingPod");
    const pod = workerPod("a", { grace: 30 });
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();

    workers.updatePod({ updateType: "kill", pod, killPodOptions: { gracePeriodSecondsOverride: 10 } });
    await relistUntil(() => syncer.calls.length >= 2, "a second syncer call");
    const first = syncer.last();
    expect(first.gracePeriodSeconds).toBe(10);

    // A longer grace does not apply and does not interrupt the terminating sync.
    workers.updatePod({ updateType: "kill", pod, killPodOptions: { gracePeriodSecondsOverride: 20 } });
    expect(first.signal.aborted).toBe(false);

    // A shorter one cancels it; the retry runs with the shorter grace.
    workers.updatePod({ updateType: "kill", pod, killPodOptions: { gracePeriodSecondsOverride: 0 } });
    expect(first.signal.aborted).toBe(true);
    await relistUntil(() => syncer.calls.length >= 3, "a third syncer call");
    expect(syncer.last().method).toBe("syncTerminatingPod");
    expect(syncer.last().gracePeriodSeconds).toBe(1);
    syncer.always("syncTerminatingPod", {});
    syncer.last().release();
    await settle();
    expect(syncer.last().method).toBe("syncTerminatedPod");
  });

  test("a deletion timestamp starts termination with the deletion grace period", async () => {
    const { workers, syncer, settle } = setupWorkers();
    const pod = workerPod("a", { grace: 30 });
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    const deleted = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 5 } };
    workers.updatePod({ updateType: "update", pod: deleted });
    await settle();
    expect(syncer.calls[1]!.method).toBe("syncTerminatingPod");
    expect(syncer.calls[1]!.gracePeriodSeconds).toBe(5);
    expect(workers.shouldPodContentBeRemoved("a")).toBe(true);
  });

  test("a pod that reaches a terminal phase on its own terminates at once with its own grace period", async () => {
    const { workers, syncer, workQueue, clock, settle, relistUntil } = setupWorkers();
    syncer.next("syncPod", { isTerminal: true });
    syncer.holdAll("syncTerminatingPod");
    workers.updatePod({ updateType: "create", pod: workerPod("a", { grace: 7 }) });
    await relistUntil(() => syncer.calls.length >= 2, "a second syncer call");
    expect(workQueue.dueAt("a")).toBeLessThanOrEqual(clock.now());
    expect(syncer.last().method).toBe("syncTerminatingPod");
    expect(syncer.last().gracePeriodSeconds).toBe(7);
    expect(workers.shouldPodContainersBeTerminating("a")).toBe(true);
    syncer.last().release();
    await settle();
    expect(syncer.last().method).toBe("syncTerminatedPod");
  });

  test("a failed terminating sync is retried and termination still completes", async () => {
    const { workers, syncer, relist, workQueue, clock, settle } = setupWorkers();
    const pod = workerPod("a");
    syncer.next("syncTerminatingPod", { error: new Error("StopContainer: deadline exceeded") });
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    workers.updatePod({ updateType: "kill", pod });
    await settle();
    expect(workers.isPodKnownTerminated("a")).toBe(false);
    expect(workQueue.dueAt("a")).toBe(clock.now() + 10_000);
    // The sync loop resends the pod when it is due.
    await relist(10_000);
    workers.updatePod({ updateType: "sync", pod });
    await settle();
    expect(syncer.methods().slice(1)).toEqual(["syncTerminatingPod:a", "syncTerminatingPod:a", "syncTerminatedPod:a"]);
  });

  test("kill callbacks: the status function reaches the terminating sync, onCompleted runs once stopped", async () => {
    const { workers, syncer, settle, relistUntil } = setupWorkers();
    const pod = workerPod("a");
    syncer.holdAll("syncTerminatingPod");
    workers.updatePod({ updateType: "create", pod });
    await workers.whenIdle();
    const completed: string[] = [];
    const statusFn = (s: PodStatus) => {
      s.reason = "Evicted";
    };
    workers.updatePod({ updateType: "kill", pod, killPodOptions: { evict: true, podStatusFn: statusFn, onCompleted: () => completed.push("first") } });
    await relistUntil(() => syncer.calls.length >= 2, "a second syncer call");
    expect(syncer.last().podStatusFn).toBe(statusFn);
    workers.updatePod({ updateType: "kill", pod, killPodOptions: { onCompleted: () => completed.push("second") } });
    expect(completed).toEqual([]);
    syncer.last().release();
    await settle();
    expect(completed).toEqual(["first", "second"]);
    expect(workers.shouldPodContentBeRemoved("a")).toBe(true);

    // Already terminated: a further kill completes at once.
    workers.updatePod({ updateType: "kill", pod, killPodOptions: { onCompleted: () => completed.push("late") } });
    expect(completed).toEqual(["first", "second"]);
  });

  test("a runtime-only pod is killed with syncTerminatingRuntimePod and then forgotten", async () => {
    const { workers, syncer } = setupWorkers();
    workers.updatePod({ updateType: "sync", runningPod: makeRuntimePod("orphan") });
    await workers.whenIdle();
    expect(syncer.calls).toHaveLength(0);
    expect(workers.knownUids()).toEqual([]);

    workers.updatePod({ updateType: "kill", runningPod: makeRuntimePod("orphan"), killPodOptions: { gracePeriodSecondsOverride: 1 } });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncTerminatingRuntimePod:orphan"]);
    expect(workers.knownUids()).toEqual([]);
  });

  test("a pod first seen with a terminal phase and nothing running only gets syncTerminatedPod", async () => {
    const { workers, syncer } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("done", { phase: "Succeeded" }) });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncTerminatedPod:done"]);
    expect(workers.shouldPodBeFinished("done")).toBe(true);
  });

  test("stop() aborts the sync in flight, ends every worker and ignores later updates", async () => {
    const { workers, syncer } = setupWorkers();
    syncer.holdAll("syncPod");
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await syncer.waitForCalls(1);
    await workers.stop();
    expect(syncer.last().signal.aborted).toBe(true);
    workers.updatePod({ updateType: "create", pod: workerPod("b") });
    await workers.whenIdle();
    expect(syncer.calls).toHaveLength(1);
  });
});
