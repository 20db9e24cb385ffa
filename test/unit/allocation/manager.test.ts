// The allocation manager's resize decision (upstream's TestHandlePodResourcesResize): a resize that
// fits next to the other pods' allocations is allocated (PodResizeInProgress, ResizeStarted); one
// an admit handler calls Infeasible is PodResizePending Infeasible; any other refusal is Deferred
// and retried when room is made; a reverted resize clears its pending condition; admission of new
// pods counts the allocated resources, never the desired ones.
import { describe, expect, test } from "bun:test";
import type { Pod, ResourceRequirements } from "../../../src/api/index.ts";
import { canAdmitPod, type AdmissionNode } from "../../../src/admission/index.ts";
import { createAllocationManager, resourceInfoForPod, type AdmitResult } from "../../../src/allocation/index.ts";
import { createResizeConditions } from "../../../src/status/testing.ts";
import type { Logger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { makePod } from "../../fixtures/pods.ts";

const log: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

const node: AdmissionNode = { name: "n", labels: {}, taints: [], allocatable: { milliCPU: 1000n, memory: 1024n * 1024n * 1024n, ephemeralStorage: 0n, pods: 110 } };

function pod(name: string, cpu: string, generation = 1): Pod {
  return makePod({
    name,
    namespace: "ns",
    metadata: { uid: `uid-${name}`, generation },
    spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu, memory: "64Mi" }, limits: { cpu, memory: "64Mi" } } }] },
  });
}
const withCpu = (p: Pod, cpu: string): Pod => ({
  ...p,
  metadata: { ...p.metadata, generation: (p.metadata.generation ?? 1) + 1 },
  spec: { ...p.spec, containers: [{ ...p.spec.containers[0]!, resources: { requests: { cpu, memory: "64Mi" }, limits: { cpu, memory: "64Mi" } } }] },
});

function setup(extraAdmit?: (pod: Pod) => AdmitResult | undefined) {
  const stored = new Map<string, { containers: Record<string, ResourceRequirements> }>();
  const conditions = createResizeConditions(() => Date.UTC(2026, 0, 1));
  const pods = new Map<string, Pod>();
  const events: string[] = [];
  const synced: string[] = [];
  const manager = createAllocationManager({
    store: {
      get: (uid) => stored.get(uid),
      set: (uid, info) => void stored.set(uid, info),
      remove: (uid) => void stored.delete(uid),
      retain: (keep) => [...stored.keys()].forEach((k) => keep.has(k) || stored.delete(k)),
    },
    conditions,
    admit: (p, others) => extraAdmit?.(p) ?? canAdmitPod(p, others, node),
    activePods: () => [...pods.values()],
    podByUID: (uid) => pods.get(uid),
    triggerPodSync: (p) => synced.push(p.metadata.name!),
    sourcesReady: () => true,
    event: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`),
    clock: new FakeClock(),
    log,
  });
  /** Admits a pod as HandlePodAdditions does. */
  const add = (p: Pod) => {
    const r = manager.addPod([...pods.values()], p);
    if (r.admit) pods.set(p.metadata.uid!, p);
    return r;
  };
  /** A spec update from the apiserver, as HandlePodUpdates passes a resize on. */
  const update = (p: Pod) => {
    pods.set(p.metadata.uid!, p);
    if (manager.updatePodFromAllocation(p).updated) {
      manager.pushPendingResize(p.metadata.uid!);
      manager.retryPendingResizes("pod_updated");
    } else manager.clearPendingCondition(p.metadata.uid!);
  };
  return { manager, conditions, pods, stored, events, synced, add, update };
}

const allocatedCpu = (s: ReturnType<typeof setup>, uid: string) => s.stored.get(uid)?.containers.c?.requests?.cpu;

describe("the resize decision", () => {
  test("feasible: the allocation follows the spec, PodResizeInProgress at the pod's generation, ResizeStarted", () => {
    const s = setup();
    expect(s.add(pod("a", "200m")).admit).toBe(true);
    s.update(withCpu(pod("a", "200m"), "500m"));
    expect(allocatedCpu(s, "uid-a")).toBe("500m");
    expect(s.conditions.get("uid-a")).toEqual([
      { type: "PodResizeInProgress", status: "True", observedGeneration: 2, lastProbeTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" },
    ]);
    expect(s.events).toEqual([
      'Normal ResizeStarted Pod resize started: {"containers":[{"name":"c","resources":{"limits":{"cpu":"500m","memory":"64Mi"},"requests":{"cpu":"500m","memory":"64Mi"}}}],"generation":2}',
    ]);
    expect(s.synced).toEqual(["a"]);
    expect(s.manager.hasPendingResizes()).toBe(false);
  });

  test("deferred: does not fit next to the others; PodResizePending Deferred with the predicate's message; retried when a pod goes", () => {
    const s = setup();
    s.add(pod("a", "200m"));
    s.add(pod("b", "600m"));
    s.update(withCpu(pod("a", "200m"), "500m"));
    expect(allocatedCpu(s, "uid-a")).toBe("200m");
    const [pending] = s.conditions.get("uid-a");
    expect(pending).toMatchObject({
      type: "PodResizePending",
      status: "True",
      reason: "Deferred",
      observedGeneration: 2,
      message: "Node didn't have enough resource: cpu, requested: 500, used: 600, capacity: 1000",
    });
    expect(s.events[0]).toStartWith("Warning ResizeDeferred Pod resize OutOfcpu: {");
    expect(s.events[0]).toEndWith(',"generation":2,"error":"Node didn\'t have enough resource: cpu, requested: 500, used: 600, capacity: 1000"}');
    expect(s.manager.hasPendingResizes()).toBe(true);
    // The same refusal again is no new event.
    s.manager.retryPendingResizes("periodic_retry");
    expect(s.events.length).toBe(1);
    // b goes: the retry allocates.
    s.pods.delete("uid-b");
    s.manager.removePod("uid-b");
    s.manager.retryPendingResizes("pods_removed");
    expect(allocatedCpu(s, "uid-a")).toBe("500m");
    expect(s.conditions.get("uid-a").map((c) => c.type)).toEqual(["PodResizeInProgress"]);
    expect(s.manager.hasPendingResizes()).toBe(false);
  });

  test("infeasible: an admit handler's Infeasible is PodResizePending Infeasible, ResizeInfeasible, and not retried", () => {
    const s = setup((p) => (p.metadata.generation === 2 ? { admit: false, reason: "Infeasible", message: "In-place resize of containers with swap is not supported." } : undefined));
    s.add(pod("a", "200m"));
    s.update(withCpu(pod("a", "200m"), "300m"));
    expect(s.conditions.get("uid-a")).toMatchObject([{ type: "PodResizePending", reason: "Infeasible", message: "In-place resize of containers with swap is not supported." }]);
    expect(s.events[0]).toStartWith("Warning ResizeInfeasible Pod resize Infeasible: ");
    expect(s.manager.hasPendingResizes()).toBe(false);
    expect(allocatedCpu(s, "uid-a")).toBe("200m");
  });

  test("a resize reverted before it was allocated clears PodResizePending", () => {
    const s = setup();
    s.add(pod("a", "200m"));
    s.add(pod("b", "600m"));
    s.update(withCpu(pod("a", "200m"), "500m"));
    expect(s.conditions.isDeferred("uid-a")).toBe(true);
    s.update(withCpu(withCpu(pod("a", "200m"), "500m"), "200m"));
    expect(s.conditions.get("uid-a")).toEqual([]);
  });

  test("admission counts the allocated resources of admitted pods, not a pending resize's desired ones", () => {
    const s = setup();
    s.add(pod("a", "200m"));
    s.add(pod("b", "600m"));
    // a wants 500m but is deferred: its allocation stays 200m, so 200m are left for c.
    s.update(withCpu(pod("a", "200m"), "500m"));
    expect(s.add(pod("c", "200m")).admit).toBe(true);
    expect(s.add(pod("d", "1m"))).toEqual({ admit: false, reason: "OutOfcpu", message: "Node didn't have enough resource: cpu, requested: 1, used: 1000, capacity: 1000" });
  });

  test("a pod shrinking in place counts at its old size until its status shows the shrink applied", () => {
    const s = setup();
    const running = (p: Pod, cpu: string): Pod => ({
      ...p,
      status: { containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "", imageID: "", allocatedResources: { cpu }, resources: { requests: { cpu } } }] },
    });
    s.add(pod("a", "600m"));
    s.pods.set("uid-a", running(pod("a", "600m"), "600m"));
    s.add(pod("b", "200m"));
    // a shrinks to 300m: allocated at once, but its status still says it runs with 600m.
    s.update(running(withCpu(pod("a", "600m"), "300m"), "600m"));
    expect(allocatedCpu(s, "uid-a")).toBe("300m");
    s.update(withCpu(pod("b", "200m"), "500m"));
    expect(s.conditions.isDeferred("uid-b")).toBe(true);
    // The shrink is applied and reported: the retry fits.
    s.pods.set("uid-a", running(withCpu(pod("a", "600m"), "300m"), "300m"));
    s.manager.retryPendingResizes("pod_resized");
    expect(allocatedCpu(s, "uid-b")).toBe("500m");
  });

  test("a pod admitted again after a restart is admitted with its kept allocation", () => {
    const s = setup();
    s.add(pod("a", "200m"));
    s.update(withCpu(pod("a", "200m"), "500m"));
    // A restart: the pod manager is empty, the checkpoint kept a's allocation (500m).
    s.pods.clear();
    s.stored.set("uid-x", resourceInfoForPod(pod("x", "100m")));
    expect(s.add(pod("a", "200m")).admit).toBe(true);
    expect(allocatedCpu(s, "uid-a")).toBe("500m");
    expect(s.manager.updatePodFromAllocation(pod("a", "200m")).pod.spec.containers[0]!.resources?.requests?.cpu).toBe("500m");
  });
});
