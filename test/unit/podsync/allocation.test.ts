// The kubelet core's resize steps (kubelet.go HandlePodUpdates / HandlePodReconcile around the
// allocation manager, SyncPod's PodResizeInProgress handling): updates of a pod never admitted are
// not passed on, a reconciled status that shows a shrink applied retries pending resizes, and each
// sync sets or clears PodResizeInProgress (ResizeCompleted) or records a failure to apply (Error).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { canAdmitPod, type AdmissionNode } from "../../../src/admission/index.ts";
import { createPodResourcesStore } from "../../../src/checkpoint/index.ts";
import type { Logger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createResizeConditions } from "../../../src/status/testing.ts";
import { createAllocation, withAllocatedResources } from "../../../src/podsync/allocation.ts";
import type { PodWorkers, UpdatePodOptions } from "../../../src/podworkers/index.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { makePod } from "../../fixtures/pods.ts";

const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const node: AdmissionNode = { name: "n", labels: {}, taints: [], allocatable: { milliCPU: 1000n, memory: 1n << 30n, ephemeralStorage: 0n, pods: 110 } };
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function pod(name: string, cpu: string, generation = 1, statusCpu?: string): Pod {
  return makePod({
    name,
    namespace: "ns",
    metadata: { uid: `uid-${name}`, generation },
    spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu }, limits: { cpu } } }] },
    status: statusCpu ? { containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "", imageID: "", resources: { requests: { cpu: statusCpu } } }] } : undefined,
  });
}

function setup(inProgress = false) {
  const rootDir = mkdtempSync(join(tmpdir(), "bunlet-allocation-"));
  dirs.push(rootDir);
  const pods = new Map<string, Pod>();
  const events: string[] = [];
  const conditions = createResizeConditions(() => 0);
  const w = createAllocation({
    rootDir,
    actuated: createPodResourcesStore({ path: join(rootDir, "actuated_pods_state"), kind: "ActuatedPods", log }),
    conditions,
    admit: (p, others) => canAdmitPod(p, others, node),
    activePods: () => [...pods.values()],
    podByUID: (uid) => pods.get(uid),
    triggerPodSync: () => undefined,
    sourcesReady: () => true,
    isPodResizeInProgress: () => inProgress,
    recorder: { event: (_ref, type, reason, message) => void events.push(`${type} ${reason} ${message}`) },
    clock: new FakeClock(),
    log,
  });
  const admit = (p: Pod) => {
    expect(w.manager.addPod([...pods.values()], p).admit).toBe(true);
    pods.set(p.metadata.uid!, p);
  };
  const update = (p: Pod) => {
    const old = pods.get(p.metadata.uid!);
    pods.set(p.metadata.uid!, p);
    return w.handlers.podUpdated(old, p);
  };
  return { w, pods, events, conditions, admit, update, rootDir };
}

const noStatus = {} as RuntimePodStatus;

describe("the kubelet's resize steps", () => {
  test("an update of a pod that was never admitted is not passed on; an admitted one's allocation is checkpointed", () => {
    const s = setup();
    expect(s.update(pod("x", "100m"))).toBe(false);
    s.admit(pod("a", "100m"));
    expect(s.update(pod("a", "200m", 2))).toBe(true);
    const file = JSON.parse(readFileSync(join(s.rootDir, "allocated_pods_state"), "utf8"));
    expect(file).toEqual({ kind: "AllocatedPods", items: [{ uid: "uid-a", containers: { c: { requests: { cpu: "200m" }, limits: { cpu: "200m" } } } }] });
  });

  test("a reconciled status that shows a pod's shrink applied retries the pending resizes", () => {
    const s = setup();
    s.admit(pod("a", "600m", 1, "600m"));
    s.admit(pod("b", "200m"));
    s.update(pod("a", "300m", 2, "600m"));
    s.update(pod("b", "500m", 2));
    expect(s.conditions.isDeferred("uid-b")).toBe(true);
    // The apiserver's copy of a now says it runs with 300m (a RECONCILE).
    const old = s.pods.get("uid-a")!;
    const shrunk = pod("a", "300m", 2, "300m");
    s.pods.set("uid-a", shrunk);
    s.w.handlers.podReconciled(old, shrunk);
    expect(s.conditions.isDeferred("uid-b")).toBe(true);
    s.w.handlers.reconciled();
    expect(s.conditions.isDeferred("uid-b")).toBe(false);
    expect(s.w.manager.updatePodFromAllocation(pod("b", "200m")).pod.spec.containers[0]!.resources?.requests?.cpu).toBe("500m");
  });

  test("a sync clears PodResizeInProgress once nothing is left to apply, with ResizeCompleted", () => {
    const s = setup(false);
    s.admit(pod("a", "100m"));
    s.update(pod("a", "200m", 2));
    expect(s.conditions.get("uid-a").map((c) => c.type)).toEqual(["PodResizeInProgress"]);
    s.w.beforeSync(pod("a", "200m", 2), noStatus);
    expect(s.conditions.get("uid-a")).toEqual([]);
    expect(s.events.at(-1)).toBe('Normal ResizeCompleted Pod resize completed: {"containers":[{"name":"c","resources":{"limits":{"cpu":"200m"},"requests":{"cpu":"200m"}}}],"generation":2}');
  });

  test("a failure to apply sets PodResizeInProgress reason Error, once, with ResizeError", () => {
    const s = setup(true);
    s.admit(pod("a", "100m"));
    s.update(pod("a", "200m", 2));
    const failed = { steps: [{ action: "ResizePodInPlace" as const, target: "a_ns(uid-a)", durationMs: 0, error: { reason: "ResizePodInPlaceError", message: "cannot decrease memory limits: x" } }] };
    s.w.beforeSync(pod("a", "200m", 2), noStatus);
    s.w.afterSync(pod("a", "200m", 2), failed);
    s.w.afterSync(pod("a", "200m", 2), failed);
    expect(s.conditions.get("uid-a")).toMatchObject([{ type: "PodResizeInProgress", reason: "Error", message: "cannot decrease memory limits: x", observedGeneration: 2 }]);
    expect(s.events.filter((e) => e.startsWith("Warning ResizeError"))).toEqual([
      'Warning ResizeError Pod resize error: {"containers":[{"name":"c","resources":{"limits":{"cpu":"200m"},"requests":{"cpu":"200m"}}}],"generation":2,"error":"cannot decrease memory limits: x"}',
    ]);
  });

  test("the pod workers are handed each pod with its allocated resources, never a resize not allocated", () => {
    const s = setup();
    s.admit(pod("a", "100m"));
    const updates: UpdatePodOptions[] = [];
    const own = { updatePod: (o: UpdatePodOptions) => void updates.push(o), isPodTerminationRequested: () => false } as unknown as PodWorkers;
    const workers = withAllocatedResources(own, s.w.manager);
    workers.updatePod({ updateType: "update", pod: pod("a", "900m", 2) });
    const runningPod = { id: "uid-x", name: "x", namespace: "ns", containers: [], sandboxes: [] } as never;
    workers.updatePod({ updateType: "kill", runningPod });
    expect(updates.map((u) => u.pod?.spec.containers[0]?.resources?.requests?.cpu)).toEqual(["100m", undefined]);
    expect(updates[0]!.pod!.metadata.generation).toBe(2);
    expect(updates[1]!.runningPod).toBe(runningPod);
    expect(workers.isPodTerminationRequested("uid-a")).toBe(false);
  });
});
