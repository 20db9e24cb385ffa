import { describe, expect, test } from "bun:test";
import { flushMicrotasks } from "../../../src/lib/testing.ts";
import { workerPod, setupWorkers } from "./helpers.ts";

describe("pod workers: one serialized worker per pod, latest update wins", () => {
  test("a new pod is synced once with its create update and the pod status from the cache", async () => {
    const { workers, syncer, cache, clock } = setupWorkers();
    const status = { uid: "a", name: "pod-a", namespace: "default", ips: ["10.0.0.5"], sandboxStatuses: [], containerStatuses: [] };
    cache.set("a", status, undefined, clock.now());
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:a:create"]);
    expect(syncer.last().podStatus).toBe(status);
  });

  test("each pod a worker starts is counted in kubelet_containers_per_pod_count once, by its containers", async () => {
    const { workers, metrics, relist } = setupWorkers();
    const two = workerPod("two");
    two.spec.containers.push({ name: "second", image: "busybox" });
    workers.updatePod({ updateType: "create", pod: workerPod("one") });
    workers.updatePod({ updateType: "create", pod: two });
    await workers.whenIdle();
    workers.updatePod({ updateType: "sync", pod: two });
    await relist();
    await workers.whenIdle();
    const values = (await metrics.containersPerPodCount.get()).values;
    expect(values.find((v) => v.metricName === "kubelet_containers_per_pod_count_count")?.value).toBe(2);
    expect(values.find((v) => v.metricName === "kubelet_containers_per_pod_count_sum")?.value).toBe(3);
  });

  test("updates that arrive while a sync runs coalesce: only the latest one runs next", async () => {
    const { workers, syncer, relist } = setupWorkers();
    syncer.next("syncPod", "hold");
    const v1 = workerPod("a");
    workers.updatePod({ updateType: "create", pod: v1 });
    await syncer.waitForCalls(1);
    const v2 = { ...workerPod("a"), metadata: { ...v1.metadata, labels: { v: "2" } } };
    const v3 = { ...workerPod("a"), metadata: { ...v1.metadata, labels: { v: "3" } } };
    workers.updatePod({ updateType: "update", pod: v2 });
    workers.updatePod({ updateType: "sync", pod: v3 });
    syncer.last().release();
    await relist();
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncPod:a:sync"]);
    expect(syncer.last().pod?.metadata.labels).toEqual({ v: "3" });
  });

  test("different pods sync concurrently: a slow pod does not hold up another", async () => {
    const { workers, syncer } = setupWorkers();
    syncer.next("syncPod", "hold");
    workers.updatePod({ updateType: "create", pod: workerPod("slow") });
    workers.updatePod({ updateType: "create", pod: workerPod("fast") });
    await syncer.waitForCalls(2);
    expect(syncer.methods().sort()).toEqual(["syncPod:fast:create", "syncPod:slow:create"]);
    syncer.calls[0]!.release();
    await workers.whenIdle();
  });

  test("a sync waits until the pod cache holds status newer than the previous sync", async () => {
    const { workers, syncer, cache, clock, relist } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    workers.updatePod({ updateType: "sync", pod: workerPod("a") });
    await flushMicrotasks();
    await clock.advance(500);
    expect(syncer.calls).toHaveLength(1);

    // Status of another pod does not release this one; this pod's own newer status does.
    cache.set("b", { uid: "b", name: "b", namespace: "default", ips: [], sandboxStatuses: [], containerStatuses: [] }, undefined, clock.now());
    await flushMicrotasks();
    expect(syncer.calls).toHaveLength(1);
    cache.set("a", { uid: "a", name: "pod-a", namespace: "default", ips: [], sandboxStatuses: [], containerStatuses: [] }, undefined, clock.now());
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncPod:a:sync"]);

    // A global relist timestamp releases it too.
    workers.updatePod({ updateType: "sync", pod: workerPod("a") });
    await flushMicrotasks();
    expect(syncer.calls).toHaveLength(2);
    await relist();
    await workers.whenIdle();
    expect(syncer.calls).toHaveLength(3);
  });

  test("a sync's postSync runs once, after the sync ended and the worker took its last sync time", async () => {
    const { workers, syncer, clock, relist } = setupWorkers();
    const order: string[] = [];
    let calledAt = -1;
    syncer.next("syncPod", {
      postSync: () => {
        order.push("postSync");
        calledAt = clock.now();
      },
    });
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    order.push("idle");
    expect(order).toEqual(["postSync", "idle"]);
    expect(calledAt).toBe(clock.now());
    // The next sync of the pod does not call it again.
    workers.updatePod({ updateType: "sync", pod: workerPod("a") });
    await relist();
    await workers.whenIdle();
    expect(syncer.methods()).toEqual(["syncPod:a:create", "syncPod:a:sync"]);
    expect(order).toEqual(["postSync", "idle"]);
  });

  test("a cache entry carrying an inspection error fails the sync without calling the syncer", async () => {
    const { workers, syncer, cache, clock, workQueue } = setupWorkers();
    const empty = { uid: "a", name: "pod-a", namespace: "default", ips: [], sandboxStatuses: [], containerStatuses: [] };
    cache.set("a", empty, new Error("inspect failed"), clock.now());
    workers.updatePod({ updateType: "create", pod: workerPod("a") });
    await workers.whenIdle();
    expect(syncer.calls).toHaveLength(0);
    expect(workQueue.dueAt("a")).toBe(clock.now() + 10_000);
  });

  test("kill options on an update of a running pod are reported done at once and ignored", async () => {
    const { workers, syncer } = setupWorkers();
    let completed = 0;
    workers.updatePod({ updateType: "create", pod: workerPod("a"), killPodOptions: { onCompleted: () => completed++ } });
    await workers.whenIdle();
    expect(completed).toBe(1);
    expect(syncer.methods()).toEqual(["syncPod:a:create"]);
    expect(workers.isPodTerminationRequested("a")).toBe(false);
  });

  test("kubelet_pod_worker_duration_seconds is observed per update type from the update's start time", async () => {
    const { workers, metrics, clock } = setupWorkers();
    workers.updatePod({ updateType: "create", pod: workerPod("a"), startTime: clock.now() - 2_000 });
    await workers.whenIdle();
    const data = await metrics.podWorkerDuration.get();
    const count = data.values.find((v) => v.metricName === "kubelet_pod_worker_duration_seconds_count");
    const sum = data.values.find((v) => v.metricName === "kubelet_pod_worker_duration_seconds_sum");
    expect(count?.labels).toEqual({ operation_type: "create" });
    expect(count?.value).toBe(1);
    expect(sum?.value).toBe(2);
  });
});
