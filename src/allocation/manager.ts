/**
 * The allocation manager (pkg/kubelet/allocation/allocation_manager.go): what the node allocated
 * to each pod, kept in a checkpoint so it survives a restart. Admission counts the allocated
 * resources of the pods already admitted, never the desired ones of a resize not yet accepted. A
 * resize (the pod's desired resources differ from its allocation) is admitted like a new pod
 * against the others; if it fits the allocation follows the spec and PodResizeInProgress is set,
 * else PodResizePending says why (Infeasible, or Deferred for any other reason) and the pod is
 * queued: pending resizes are retried when a pod is removed, ends, shrinks, and every 3 minutes.
 */
import { computePodQOS, podRef, podUID, type Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { podResizeMessage, ResizeDeferred, ResizeInfeasible, ResizeStarted } from "./events.ts";
import { podRequests } from "../admission/index.ts";
import { resourceInfoForPod, updatePodFromAllocation, type PodResourceInfo } from "./resources.ts";

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };
export type AdmitOperation = "add" | "resize";

/** The resize conditions as the status manager caches them. */
export interface ResizeConditionsView {
  get(uid: string): { type: string; reason?: string; lastTransitionTime?: string }[];
  setPending(uid: string, reason: string, message: string, observedGeneration: number): boolean;
  setInProgress(uid: string, reason: string, message: string, observedGeneration: number): { generation: number; changed: boolean };
  clearPending(uid: string): void;
  clearInProgress(uid: string): number | undefined;
  isDeferred(uid: string): boolean;
  isInfeasible(uid: string): boolean;
}

export interface AllocationStore {
  get(uid: string): PodResourceInfo | undefined;
  set(uid: string, info: PodResourceInfo): void;
  remove(uid: string): void;
  retain(keep: ReadonlySet<string>): void;
}

export interface AllocationManagerDeps {
  store: AllocationStore;
  conditions: ResizeConditionsView;
  /** The admit handlers (canAdmitPod): `others` are the admitted pods with their allocations. */
  admit(pod: Pod, others: Pod[], operation: AdmitOperation): AdmitResult;
  /** The pods admitted and still active (the kubelet's GetActivePods). */
  activePods(): Pod[];
  podByUID(uid: string): Pod | undefined;
  /** Syncs the pod now (the kubelet's syncPodNow): a resize was allocated, or its conditions changed. */
  triggerPodSync(pod: Pod): void;
  /** All config sources have been seen: before that, pending resizes wait. */
  sourcesReady(): boolean;
  event(pod: Pod, type: "Normal" | "Warning", reason: string, message: string): void;
  clock: Clock;
  log: Logger;
}

/** First retry of pending resizes 30 s after start (or after sources became ready), then every 3 min. */
const initialRetryDelayMs = 30_000;
const retryDelayMs = 180_000;

export type AllocationManager = ReturnType<typeof createAllocationManager>;

export function createAllocationManager(deps: AllocationManagerDeps) {
  const { store, conditions, log } = deps;
  let pending: string[] = [];
  let nextRetry = deps.clock.now() + initialRetryDelayMs;

  const fromAllocation = (pod: Pod): { pod: Pod; updated: boolean } => {
    const info = store.get(podUID(pod));
    return info === undefined ? { pod, updated: false } : updatePodFromAllocation(pod, info);
  };
  /** getAllocatedPods: the active pods that have an allocation, each with it. */
  const allocatedPods = (active: Pod[]) => active.filter((p) => store.get(podUID(p)) !== undefined).map((p) => fromAllocation(p).pod);
  const canAdmit = (pod: Pod, allocated: Pod[], op: AdmitOperation) =>
    deps.admit(
      pod,
      allocated.filter((p) => podUID(p) !== podUID(pod)),
      op,
    );
  const generation = (pod: Pod) => pod.metadata.generation ?? 0;

  function isResizeIncreasingRequests(pod: Pod): boolean {
    const { pod: allocated, updated } = fromAllocation(pod);
    if (!updated) return false;
    const before = podRequests(allocated);
    const after = podRequests(pod);
    return after.memory > before.memory || after.milliCPU > before.milliCPU;
  }

  const pendingSince = (pod: Pod) => conditions.get(podUID(pod)).find((c) => c.type === "PodResizePending")?.lastTransitionTime;

  /** sortPendingResizes: non-increasing first, then priority, then Guaranteed, then the longest pending. */
  function sortPending(): void {
    const pods = pending.map((uid) => deps.podByUID(uid)).filter((p): p is Pod => p !== undefined);
    pods.sort((a, b) => {
      if (!isResizeIncreasingRequests(a)) return -1;
      if (!isResizeIncreasingRequests(b)) return 1;
      const pa = a.spec.priority ?? 0;
      const pb = b.spec.priority ?? 0;
      if (pa !== pb) return pa > pb ? -1 : 1;
      const ga = computePodQOS(a) === "Guaranteed";
      const gb = computePodQOS(b) === "Guaranteed";
      if (ga !== gb) return ga ? -1 : 1;
      const ta = pendingSince(a);
      const tb = pendingSince(b);
      if (ta === undefined) return 1;
      if (tb === undefined) return -1;
      return Date.parse(ta) < Date.parse(tb) ? -1 : 1;
    });
    pending = pods.map(podUID);
  }

  /** handlePodResourcesResize: true when a new allocation was made. */
  function handlePodResourcesResize(pod: Pod): boolean {
    const uid = podUID(pod);
    if (!fromAllocation(pod).updated) {
      // Desired equals allocated: a pending resize was reverted.
      conditions.clearPending(uid);
      return false;
    }
    const result = canAdmit(pod, allocatedPods(deps.activePods()), "resize");
    if (result.admit) {
      store.set(uid, resourceInfoForPod(pod));
      conditions.clearPending(uid);
      // A new allocation restarts the in-progress condition at this generation, clearing an old error.
      conditions.clearInProgress(uid);
      conditions.setInProgress(uid, "", "", generation(pod));
      deps.event(pod, "Normal", ResizeStarted, podResizeMessage(pod, generation(pod), "", "Pod resize started"));
      return true;
    }
    if (result.reason !== "" && conditions.setPending(uid, result.reason, result.message, generation(pod))) {
      const reason = result.reason === "Infeasible" ? ResizeInfeasible : ResizeDeferred;
      deps.event(pod, "Warning", reason, podResizeMessage(pod, generation(pod), result.message, `Pod resize ${result.reason}`));
    }
    return false;
  }

  function retryPendingResizes(trigger: string): Pod[] {
    if (!deps.sourcesReady()) {
      log.debug("Skipping evaluation of pending resizes; sources are not ready", {}, 4);
      nextRetry = deps.clock.now() + initialRetryDelayMs;
      return [];
    }
    nextRetry = deps.clock.now() + retryDelayMs;
    const stillPending: string[] = [];
    const succeeded: Pod[] = [];
    for (const uid of pending) {
      const pod = deps.podByUID(uid);
      if (pod === undefined) continue;
      const before = JSON.stringify(conditions.get(uid).map(({ lastTransitionTime: _t, ...c }) => c));
      const allocatedNow = handlePodResourcesResize(pod);
      if (conditions.isDeferred(uid)) stillPending.push(uid);
      else if (!conditions.isInfeasible(uid)) succeeded.push(pod);
      const after = JSON.stringify(conditions.get(uid).map(({ lastTransitionTime: _t, ...c }) => c));
      if (allocatedNow || before !== after) deps.triggerPodSync(pod);
    }
    pending = stillPending;
    if (succeeded.length > 0) log.debug("Pending resizes retried", { trigger, allocated: succeeded.map((p) => String(podRef(p))).join(",") }, 4);
    return succeeded;
  }

  return {
    /** The pod with its allocated resources (a copy when they differ from the spec). */
    updatePodFromAllocation: fromAllocation,
    hasPodAllocatedResources: (uid: string) => store.get(uid) !== undefined,
    /** The active pods with an allocation, with it. */
    getAllocatedPods: () => allocatedPods(deps.activePods()),

    /**
     * AddPod: admits a new pod (with its allocation, when a previous run kept one) against the
     * admitted pods, and records its allocation when admitted.
     */
    addPod(active: Pod[], pod: Pod): AdmitResult {
      const withAllocation = fromAllocation(pod).pod;
      const result = canAdmit(withAllocation, allocatedPods(active), "add");
      if (result.admit) store.set(podUID(pod), resourceInfoForPod(withAllocation));
      return result;
    },

    pushPendingResize(uid: string): void {
      if (pending.includes(uid)) return;
      pending.push(uid);
      sortPending();
    },
    hasPendingResizes: () => pending.length > 0,
    retryPendingResizes,
    /** A resize that was reverted before it was allocated. */
    clearPendingCondition: (uid: string) => conditions.clearPending(uid),

    removePod(uid: string): void {
      store.remove(uid);
    },
    removeOrphanedPods(keep: ReadonlySet<string>): void {
      store.retain(keep);
    },

    /** Retries pending resizes periodically until the signal aborts (the kubelet's ticker). */
    async run(signal: AbortSignal): Promise<void> {
      while (!signal.aborted) {
        const wait = Math.max(0, nextRetry - deps.clock.now());
        try {
          await deps.clock.sleep(wait, signal);
        } catch {
          return;
        }
        if (signal.aborted) return;
        if (deps.clock.now() < nextRetry) continue;
        for (const pod of retryPendingResizes("periodic_retry")) log.info("Successfully retried resize after timeout", { pod: podRef(pod) });
      }
    },
  };
}
