/**
 * The pod resize conditions the status manager caches per pod (status_manager.go
 * podResizeConditions): PodResizePending (reason Infeasible or Deferred: the node cannot, or
 * cannot yet, allocate the desired resources) and PodResizeInProgress (the allocation changed and
 * the runtime has not applied it all yet; reason Error with the failure while applying it fails).
 * Both are True whenever present; a condition keeps its lastTransitionTime while its reason stays,
 * and lastProbeTime is the time of the last set.
 */
import type { Pod, PodCondition } from "../api/index.ts";
import { rfc3339 } from "./time.ts";

export const PodResizePending = "PodResizePending";
export const PodResizeInProgress = "PodResizeInProgress";
const PodReasonInfeasible = "Infeasible";
const PodReasonDeferred = "Deferred";
export const PodReasonError = "Error";

interface Conditions {
  pending?: PodCondition;
  inProgress?: PodCondition;
}

export interface ResizeConditions {
  /** The pod's resize conditions: PodResizePending first, then PodResizeInProgress. */
  get(uid: string): PodCondition[];
  /**
   * Sets PodResizePending; any reason but Infeasible becomes Deferred. True when the reason or
   * observedGeneration changed (or the condition is new): the caller then records an event.
   */
  setPending(uid: string, reason: string, message: string, observedGeneration: number): boolean;
  /**
   * Sets PodResizeInProgress. An existing condition keeps its observedGeneration, and its reason
   * and message unless new ones are given. Returns the condition's observedGeneration and whether
   * it changed (lastProbeTime aside).
   */
  setInProgress(uid: string, reason: string, message: string, observedGeneration: number): { generation: number; changed: boolean };
  clearPending(uid: string): void;
  /** Removes PodResizeInProgress; the generation it had, or undefined when there was none. */
  clearInProgress(uid: string): number | undefined;
  isDeferred(uid: string): boolean;
  isInfeasible(uid: string): boolean;
  /** Takes the conditions the apiserver's copies of these pods carry (after a restart). */
  backfill(pods: readonly Pod[]): void;
  forget(uid: string): void;
}

export function createResizeConditions(now: () => number): ResizeConditions {
  const byPod = new Map<string, Conditions>();
  const updated = (type: string, old: PodCondition | undefined, reason: string, message: string, observedGeneration: number): PodCondition => {
    const stamp = rfc3339(now());
    const c: PodCondition = {
      type,
      status: "True",
      lastProbeTime: stamp,
      lastTransitionTime: old === undefined || (old.reason ?? "") !== reason ? stamp : old.lastTransitionTime,
    };
    if (observedGeneration) c.observedGeneration = observedGeneration;
    if (reason) c.reason = reason;
    if (message) c.message = message;
    return c;
  };
  const put = (uid: string, c: Conditions) => {
    if (c.pending === undefined && c.inProgress === undefined) byPod.delete(uid);
    else byPod.set(uid, c);
  };
  return {
    get(uid) {
      const c = byPod.get(uid);
      return [c?.pending, c?.inProgress].filter((x): x is PodCondition => x !== undefined).map((x) => ({ ...x }));
    },
    setPending(uid, reason, message, observedGeneration) {
      const c = byPod.get(uid) ?? {};
      const before = c.pending;
      const r = reason === PodReasonInfeasible ? reason : PodReasonDeferred;
      put(uid, { ...c, pending: updated(PodResizePending, before, r, message, observedGeneration) });
      return before === undefined || before.reason !== r || (before.observedGeneration ?? 0) !== observedGeneration;
    },
    setInProgress(uid, reason, message, observedGeneration) {
      const c = byPod.get(uid) ?? {};
      const before = c.inProgress;
      let gen = observedGeneration;
      if (before !== undefined) {
        if (reason === "" && message === "") {
          reason = before.reason ?? "";
          message = before.message ?? "";
        }
        gen = before.observedGeneration ?? 0;
      }
      const next = updated(PodResizeInProgress, before, reason, message, gen);
      put(uid, { ...c, inProgress: next });
      const same = before !== undefined && before.reason === next.reason && before.message === next.message && before.observedGeneration === next.observedGeneration;
      return { generation: gen, changed: !same };
    },
    clearPending(uid) {
      const c = byPod.get(uid);
      if (c?.pending !== undefined) put(uid, { inProgress: c.inProgress });
    },
    clearInProgress(uid) {
      const c = byPod.get(uid);
      if (c?.inProgress === undefined) return undefined;
      put(uid, { pending: c.pending });
      return c.inProgress.observedGeneration ?? 0;
    },
    isDeferred: (uid) => byPod.get(uid)?.pending?.reason === PodReasonDeferred,
    isInfeasible: (uid) => byPod.get(uid)?.pending?.reason === PodReasonInfeasible,
    backfill(pods) {
      for (const pod of pods) {
        const uid = pod.metadata.uid ?? "";
        for (const cond of pod.status?.conditions ?? []) {
          const c = byPod.get(uid) ?? {};
          if (cond.type === PodResizePending) put(uid, { ...c, pending: updated(PodResizePending, undefined, cond.reason ?? "", cond.message ?? "", cond.observedGeneration ?? 0) });
          if (cond.type === PodResizeInProgress) put(uid, { ...c, inProgress: updated(PodResizeInProgress, undefined, cond.reason ?? "", cond.message ?? "", cond.observedGeneration ?? 0) });
        }
      }
    },
    forget(uid) {
      byPod.delete(uid);
    },
  };
}
