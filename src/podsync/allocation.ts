/**
 * The in-place resize part of pod sync (kubelet.go HandlePodAdditions / Updates /
 * Removes / Reconcile around the allocation manager, and SyncPod's resize steps): the allocation
 * manager over its checkpoint under the root dir, the handlers' resize hooks, and what the pod
 * syncer does before and after each sync (PodResizeInProgress follows what the runtime applied;
 * a failure to apply becomes reason Error, with an event).
 */
import { join } from "node:path";
import { podRef, podUID, Quantity, type Pod, type ResourceRequirements } from "../api/index.ts";
import { podRequestsWithStatus } from "../admission/index.ts";
import { createAllocationManager, podResizeMessage, resourceInfoForPod, ResizeCompleted, ResizeError, type AdmitResult, type AllocationManager } from "../allocation/index.ts";
import { createPodResourcesStore, type PodResourcesStore } from "../checkpoint/index.ts";
import { podReference, type EventRecorder } from "../events/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { RuntimePodStatus } from "../container/index.ts";
import type { ContainerManager } from "../cm/index.ts";
import type { PodWorkers } from "../podworkers/index.ts";
import type { PodCgroupResizer, PodSyncResult } from "../runtime/index.ts";
import { PodReasonError, type ResizeConditions } from "../status/index.ts";

/** What the sync handlers do about allocations and resizes. */
export interface ResizeHandlers {
  /** HandlePodAdditions' tail: backfill the resize conditions, queue resizes a restart left pending. */
  podsAdded(pods: Pod[]): void;
  /** HandlePodUpdates: false when the pod has no allocation (not admitted): no worker update then. */
  podUpdated(old: Pod | undefined, pod: Pod): boolean;
  podRemoved(uid: string): void;
  /** HandlePodReconcile, per pod: notes whether pending resizes should be retried. */
  podReconciled(old: Pod | undefined, pod: Pod): void;
  /** HandlePodReconcile's end: retries pending resizes if a pod ended or shrank. */
  reconciled(): void;
  retry(trigger: string): void;
}

/** The actuated resources record as the runtime manager uses it. */
export function actuatedStore(rootDir: string, log: Logger) {
  const store = createPodResourcesStore({ path: join(rootDir, "actuated_pods_state"), kind: "ActuatedPods", log });
  return {
    store,
    get: (uid: string, name: string) => store.get(uid)?.containers[name],
    setContainer: (uid: string, name: string, resources: ResourceRequirements) => store.setContainer(uid, name, resources),
    initializePod(pod: Pod) {
      if (store.get(podUID(pod)) === undefined) store.set(podUID(pod), resourceInfoForPod(pod));
    },
  };
}

/**
 * The resize's pod-cgroup step through the container manager's door: the values a pod's
 * resources give its cgroup (ResourceConfigForPod with this node's settings), and
 * SetPodCgroupConfig of the CPU and memory fields given.
 */
export function podCgroupResizer(cm: Pick<ContainerManager, "podResourceConfig" | "updatePodCgroup">): PodCgroupResizer {
  return {
    config(pod) {
      const rc = cm.podResourceConfig(pod);
      return { memoryLimit: rc.memory, cpuShares: rc.cpuShares, cpuQuota: rc.cpuQuota, cpuPeriod: rc.cpuPeriod };
    },
    set(pod, v) {
      const rc: Parameters<ContainerManager["updatePodCgroup"]>[1] = {};
      if (v.memoryLimit !== undefined) rc.memory = v.memoryLimit;
      if (v.cpuShares !== undefined) rc.cpuShares = v.cpuShares;
      if (v.cpuQuota !== undefined) rc.cpuQuota = v.cpuQuota;
      if (v.cpuPeriod !== undefined) rc.cpuPeriod = v.cpuPeriod;
      cm.updatePodCgroup(pod, rc);
    },
  };
}

/**
 * The pod workers as everything after them sees them (pod_workers.go UpdatePod): every update
 * hands the worker the pod with its allocated resources, so a resize not (yet) allocated never
 * reaches the runtime.
 */
export function withAllocatedResources(workers: PodWorkers, manager: Pick<AllocationManager, "updatePodFromAllocation">): PodWorkers {
  return { ...workers, updatePod: (o) => workers.updatePod(o.pod ? { ...o, pod: manager.updatePodFromAllocation(o.pod).pod } : o) };
}

const resourceKeys = ["cpu", "memory"] as const;

/** recordContainerResizeOperations: a container's CPU or memory request or limit changed. */
function hasResize(old: Pod, pod: Pod): boolean {
  const all = (p: Pod) => [...(p.spec.initContainers ?? []), ...p.spec.containers];
  const q = (v: string | number | undefined) => (v === undefined ? Quantity.zero : Quantity.fromJSON(v));
  return all(old).some((oc) => {
    const nc = all(pod).find((c) => c.name === oc.name);
    return (["requests", "limits"] as const).some((kind) => resourceKeys.some((r) => !q(nc?.resources?.[kind]?.[r]).equal(q(oc.resources?.[kind]?.[r]))));
  });
}

export interface Allocation {
  manager: AllocationManager;
  handlers: ResizeHandlers;
  /** SyncPod before the status: PodResizeInProgress set while a resize is being applied, cleared (event) when done. */
  beforeSync(pod: Pod, podStatus: RuntimePodStatus): void;
  /** SyncPod after the runtime: a resize that failed to apply sets reason Error (event). */
  afterSync(pod: Pod, result: PodSyncResult): void;
  removeOrphans(keep: ReadonlySet<string>): void;
}

export interface AllocationDeps {
  rootDir: string;
  actuated: PodResourcesStore;
  conditions: ResizeConditions;
  admit(pod: Pod, others: Pod[]): AdmitResult;
  activePods(): Pod[];
  podByUID(uid: string): Pod | undefined;
  triggerPodSync(pod: Pod): void;
  sourcesReady(): boolean;
  isPodResizeInProgress(allocatedPod: Pod, podStatus: RuntimePodStatus): boolean;
  recorder: EventRecorder;
  clock: Clock;
  log: Logger;
}

type PodEvent = (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;

export function createAllocation(deps: AllocationDeps): Allocation {
  const event: PodEvent = (pod, type, reason, message) => deps.recorder.event(podReference(pod), type, reason, message);
  const manager = allocationManager(deps, event);
  return {
    manager,
    handlers: resizeHandlers(manager, deps.conditions, deps.log),
    ...resizeSyncSteps(deps, event),
    removeOrphans(keep) {
      manager.removeOrphanedPods(keep);
      deps.actuated.retain(keep);
    },
  };
}

/** The allocation manager over its checkpoint, `<root-dir>/allocated_pods_state`. */
function allocationManager(deps: AllocationDeps, event: PodEvent): AllocationManager {
  return createAllocationManager({
    store: createPodResourcesStore({ path: join(deps.rootDir, "allocated_pods_state"), kind: "AllocatedPods", log: deps.log }),
    conditions: deps.conditions,
    admit: (pod, others) => deps.admit(pod, others),
    activePods: deps.activePods,
    podByUID: deps.podByUID,
    triggerPodSync: deps.triggerPodSync,
    sourcesReady: deps.sourcesReady,
    event,
    clock: deps.clock,
    log: deps.log,
  });
}

const isTerminal = (p: Pod) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed";

/**
 * HandlePodReconcile's per-pod test: why the pending resizes should be retried once the
 * reconcile ends (a pod ended, or a resize of it down was applied: room for others), if at all.
 */
function reconcileTriggerFor(manager: AllocationManager, old: Pod, pod: Pod): string | undefined {
  if (isTerminal(pod) && !isTerminal(old)) return "pod_terminated";
  if (!manager.hasPodAllocatedResources(podUID(pod))) return undefined;
  // A resize of this pod down was applied (its reported resources shrank): room for others.
  const before = podRequestsWithStatus(manager.updatePodFromAllocation(old).pod);
  const after = podRequestsWithStatus(manager.updatePodFromAllocation(pod).pod);
  return after.milliCPU < before.milliCPU || after.memory < before.memory ? "pod_resized" : undefined;
}

/** The sync handlers' resize hooks; a reconcile remembers the first reason to retry until it ends. */
function resizeHandlers(manager: AllocationManager, conditions: ResizeConditions, log: Logger): ResizeHandlers {
  let reconcileTrigger: string | undefined;
  return {
    podsAdded(pods) {
      conditions.backfill(pods);
      // Resizes a previous run left pending are evaluated once every added pod is admitted.
      const pendingUIDs = pods.filter((p) => manager.hasPodAllocatedResources(podUID(p)) && manager.updatePodFromAllocation(p).updated).map(podUID);
      for (const uid of pendingUIDs) manager.pushPendingResize(uid);
      if (pendingUIDs.length > 0) manager.retryPendingResizes("pods_added");
    },
    podUpdated(old, pod) {
      if (!manager.hasPodAllocatedResources(podUID(pod))) {
        log.debug("Skipping pod update for non-allocated pod", { pod: podRef(pod), podUID: podUID(pod) }, 4);
        return false;
      }
      if (old === undefined || hasResize(old, pod)) {
        if (manager.updatePodFromAllocation(pod).updated) {
          manager.pushPendingResize(podUID(pod));
          manager.retryPendingResizes("pod_updated");
        } else manager.clearPendingCondition(podUID(pod));
      }
      return true;
    },
    podRemoved(uid) {
      manager.removePod(uid);
    },
    podReconciled(old, pod) {
      if (!manager.hasPendingResizes() || reconcileTrigger !== undefined || old === undefined) return;
      reconcileTrigger = reconcileTriggerFor(manager, old, pod);
    },
    reconciled() {
      const trigger = reconcileTrigger;
      reconcileTrigger = undefined;
      if (trigger !== undefined) manager.retryPendingResizes(trigger);
    },
    retry(trigger) {
      manager.retryPendingResizes(trigger);
    },
  };
}

/** SyncPod's resize steps around the runtime: PodResizeInProgress and ResizeCompleted before, a failure to apply (Error) after. */
function resizeSyncSteps(deps: AllocationDeps, event: PodEvent): Pick<Allocation, "beforeSync" | "afterSync"> {
  const { conditions } = deps;
  const generation = (pod: Pod) => pod.metadata.generation ?? 0;
  return {
    beforeSync(pod, podStatus) {
      const uid = podUID(pod);
      if (deps.isPodResizeInProgress(pod, podStatus)) {
        conditions.setInProgress(uid, "", "", generation(pod));
        return;
      }
      const gen = conditions.clearInProgress(uid);
      if (gen !== undefined) event(pod, "Normal", ResizeCompleted, podResizeMessage(pod, gen, "", "Pod resize completed"));
    },
    afterSync(pod, result) {
      for (const step of result.steps) {
        if (step.action !== "ResizePodInPlace" || step.error === undefined) continue;
        const { generation: gen, changed } = conditions.setInProgress(podUID(pod), PodReasonError, step.error.message, generation(pod));
        if (changed) event(pod, "Warning", ResizeError, podResizeMessage(pod, gen, step.error.message, "Pod resize error"));
      }
    },
  };
}
