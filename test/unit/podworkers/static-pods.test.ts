import { describe, expect, test } from "bun:test";
import { flushMicrotasks } from "../../../src/lib/testing.ts";
import { StaticPodStartGate } from "../../../src/podworkers/static-pods.ts";
import { workerPod, makeRuntimePod, setupWorkers } from "./helpers.ts";

describe("StaticPodStartGate", () => {
  const alive = () => true;

  test("the first waiter of a full name starts; others wait until it is released", () => {
    const gate = new StaticPodStartGate();
    gate.enqueue("web_default", "v1");
    gate.enqueue("web_default", "v2");
    expect(gate.tryStart("web_default", "v2", alive)).toBe(false);
    expect(gate.tryStart("web_default", "v1", alive)).toBe(true);
    expect(gate.tryStart("web_default", "v1", alive)).toBe(true);
    expect(gate.tryStart("web_default", "v2", alive)).toBe(false);
    gate.release("web_default", "v1");
    expect(gate.tryStart("web_default", "v2", alive)).toBe(true);
    expect(gate.holder("web_default")).toBe("v2");
    expect(gate.waiting("web_default")).toEqual([]);
  });

  test("waiters that died meanwhile are skipped", () => {
    const gate = new StaticPodStartGate();
    for (const uid of ["v1", "v2", "v3"]) gate.enqueue("web_default", uid);
    expect(gate.tryStart("web_default", "v3", (uid) => uid === "v3")).toBe(true);
  });

  test("different full names do not block each other", () => {
    const gate = new StaticPodStartGate();
    gate.enqueue("a_default", "a1");
    gate.enqueue("b_default", "b1");
    expect(gate.tryStart("b_default", "b1", alive)).toBe(true);
    expect(gate.tryStart("a_default", "a1", alive)).toBe(true);
  });

  test("a runtime pod of the same full name blocks every other UID until the runtime stops reporting it", () => {
    const gate = new StaticPodStartGate();
    expect(gate.observeRuntime([{ fullName: "web_default", uid: "old" }])).toEqual([]);
    gate.enqueue("web_default", "new");
    expect(gate.tryStart("web_default", "new", alive)).toBe(false);
    expect(gate.observeRuntime([])).toEqual(["web_default"]);
    expect(gate.tryStart("web_default", "new", alive)).toBe(true);
  });

  test("a runtime pod's UID is freed when its worker releases it (the orphan was killed)", () => {
    const gate = new StaticPodStartGate();
    gate.observeRuntime([{ fullName: "web_default", uid: "old" }]);
    gate.enqueue("web_default", "new");
    gate.release("web_default", "old");
    expect(gate.tryStart("web_default", "new", alive)).toBe(true);
  });

  test("a desired pod already running in the runtime starts before the waiters ahead of it in line", () => {
    const gate = new StaticPodStartGate();
    gate.observeRuntime([{ fullName: "web_default", uid: "adopted" }]);
    gate.enqueue("web_default", "other");
    gate.enqueue("web_default", "adopted");
    expect(gate.tryStart("web_default", "other", alive)).toBe(false);
    expect(gate.tryStart("web_default", "adopted", alive)).toBe(true);
    expect(gate.waiting("web_default")).toEqual(["other"]);
  });

  test("release by a UID that does not hold the name changes nothing", () => {
    const gate = new StaticPodStartGate();
    gate.enqueue("web_default", "v1");
    gate.tryStart("web_default", "v1", alive);
    gate.release("web_default", "v2");
    expect(gate.holder("web_default")).toBe("v1");
  });
});

describe("pod workers: static pods with the same full name start one at a time", () => {
  test("the new version of an edited static pod waits until the old one finished", async () => {
    const { workers, syncer, workQueue, clock, settle } = setupWorkers({ random: () => 0.5 });
    const v1 = workerPod("v1", { name: "web", static: true });
    const v2 = workerPod("v2", { name: "web", static: true });
    workers.updatePod({ updateType: "create", pod: v1 });
    workers.updatePod({ updateType: "create", pod: v2 });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:v1:create"]);
    // v2 looks again after a jittered backoff.
    expect(workQueue.dueAt("v2")).toBe(clock.now() + 12_500);

    // The sync loop retries v2 while v1 still runs: still blocked.
    workers.updatePod({ updateType: "sync", pod: v2 });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:v1:create"]);
    expect(workers.isPodForMirrorPodTerminatingByFullName("web_default")).toBe(false);

    workers.updatePod({ updateType: "kill", pod: v1 });
    expect(workers.isPodForMirrorPodTerminatingByFullName("web_default")).toBe(true);
    await settle();
    expect(workers.isPodForMirrorPodTerminatingByFullName("web_default")).toBe(false);
    // Beyond the kubelet: the waiter is due at once, not at the end of its backoff.
    expect(workQueue.dueAt("v2")).toBe(clock.now());
    workers.updatePod({ updateType: "sync", pod: v2 });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:v1:create", "syncTerminatingPod:v1", "syncTerminatedPod:v1", "syncPod:v2:sync"]);
  });

  test("a static pod killed before it could start finishes without any sync and completes its kill", async () => {
    const { workers, syncer } = setupWorkers();
    const v1 = workerPod("v1", { name: "web", static: true });
    const v2 = workerPod("v2", { name: "web", static: true });
    workers.updatePod({ updateType: "create", pod: v1 });
    workers.updatePod({ updateType: "create", pod: v2 });
    await workers.whenIdle();
    let completed = false;
    workers.updatePod({ updateType: "kill", pod: v2, killPodOptions: { onCompleted: () => (completed = true) } });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:v1:create"]);
    expect(workers.shouldPodBeFinished("v2")).toBe(true);
    expect(completed).toBe(true);
  });

  test("an edit made while bunlet was stopped: the new version waits until the orphaned old one is killed", async () => {
    const { workers, syncer, workQueue, clock, settle } = setupWorkers({ random: () => 0.5 });
    const old = { ...makeRuntimePod("old"), name: "web" };
    // Start-up: the runtime still runs the old version; the new one arrives from the manifest.
    workers.observeRuntimePods([old]);
    const fresh = workerPod("new", { name: "web", static: true });
    workers.updatePod({ updateType: "create", pod: fresh });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual([]);
    expect(workQueue.dueAt("new")).toBe(clock.now() + 12_500);

    // Housekeeping: the old pod is still listed, so it holds the name, and it is killed.
    syncer.holdAll("syncTerminatingRuntimePod");
    workers.observeRuntimePods([old]);
    workers.syncKnownPods([fresh]);
    workers.updatePod({ updateType: "kill", runningPod: old, killPodOptions: { gracePeriodSecondsOverride: 1 } });
    await syncer.waitForCalls(1);
    workers.updatePod({ updateType: "sync", pod: fresh });
    await flushMicrotasks();
    expect(syncer.methods()).toEqual(["syncTerminatingRuntimePod:old"]);

    // The old pod stopped: the new one is due at once and starts.
    syncer.last().release();
    await settle();
    expect(workQueue.dueAt("new")).toBe(clock.now());
    workers.updatePod({ updateType: "sync", pod: fresh });
    await settle();
    expect(syncer.methods()).toEqual(["syncTerminatingRuntimePod:old", "syncPod:new:sync"]);
  });

  test("a runtime pod that vanished on its own frees the name at the next look at the runtime", async () => {
    const { workers, syncer, workQueue, clock, settle } = setupWorkers();
    workers.observeRuntimePods([{ ...makeRuntimePod("old"), name: "web" }]);
    const fresh = workerPod("new", { name: "web", static: true });
    workers.updatePod({ updateType: "create", pod: fresh });
    await workers.whenIdle();
    workers.observeRuntimePods([]);
    expect(workQueue.dueAt("new")).toBe(clock.now());
    workers.updatePod({ updateType: "sync", pod: fresh });
    await settle();
    expect(syncer.methods()).toEqual(["syncPod:new:sync"]);
  });

  test("pods that are not static never wait for each other, even with the same name", async () => {
    const { workers, syncer } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("u1", { name: "web" }) });
    workers.updatePod({ updateType: "create", pod: workerPod("u2", { name: "web" }) });
    await workers.whenIdle();
    expect(syncer.methods().sort()).toEqual(["syncPod:u1:create", "syncPod:u2:create"]);
  });
});
