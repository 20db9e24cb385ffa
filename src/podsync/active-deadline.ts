/**
 * spec.activeDeadlineSeconds (pkg/kubelet/active_deadline.go): a pod that has been active on the
 * node (since its status's startTime) for at least its deadline is synced at the next sync tick
 * (the sync loop's handler) and its generated status is Failed with reason DeadlineExceeded (the
 * status generator's handler); the pod worker then sees a terminal phase and kills the pod. The
 * deadline is read from the latest spec, so an update of it on a running pod takes effect.
 */
import type { Pod, PodStatus } from "../api/index.ts";
import { podReference, type EventRecorder } from "../events/index.ts";
import type { Clock } from "../lib/index.ts";

const DeadlineExceeded = "DeadlineExceeded";
const DeadlineExceededMessage = "Pod was active on the node longer than the specified deadline";

/** lifecycle.ShouldEvictResponse. */
export interface ShouldEvictResponse {
  evict: boolean;
  reason?: string;
  message?: string;
}

export interface ActiveDeadlineHandler {
  /** PodSyncLoopHandler: the pod is past its deadline and must be synced now. */
  shouldSync(pod: Pod): boolean;
  /** PodSyncHandler: the pod is past its deadline and must fail; records a DeadlineExceeded event then. */
  shouldEvict(pod: Pod): ShouldEvictResponse;
}

export interface ActiveDeadlineDeps {
  /** The status bunlet last set for the pod (the status manager's), else the pod's own is used. */
  podStatus(uid: string): PodStatus | undefined;
  recorder: EventRecorder;
  clock: Clock;
}

export function createActiveDeadlineHandler(deps: ActiveDeadlineDeps): ActiveDeadlineHandler {
  const pastActiveDeadline = (pod: Pod): boolean => {
    const deadline = pod.spec.activeDeadlineSeconds;
    if (deadline === undefined || deadline === null) return false;
    const status = deps.podStatus(pod.metadata.uid ?? "") ?? pod.status ?? {};
    // No start time: the pod has not been active on this node yet.
    const start = status.startTime ? Date.parse(status.startTime) : NaN;
    if (Number.isNaN(start)) return false;
    return deps.clock.now() - start >= deadline * 1000;
  };
  return {
    shouldSync: pastActiveDeadline,
    shouldEvict(pod) {
      if (!pastActiveDeadline(pod)) return { evict: false };
      deps.recorder.event(podReference(pod), "Normal", DeadlineExceeded, DeadlineExceededMessage);
      return { evict: true, reason: DeadlineExceeded, message: DeadlineExceededMessage };
    },
  };
}
