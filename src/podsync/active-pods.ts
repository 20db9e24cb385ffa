/**
 * The active pods and the kill-and-wait that the eviction manager, graceful node shutdown, the
 * QoS cgroup update and the allocation manager use (kubelet.go GetActivePods, and killPodNow in
 * pod_workers.go's terms: a kill the caller waits for).
 */
import { podUID, type Pod, type PodStatus } from "../api/index.ts";
import type { Clock } from "../lib/index.ts";
import type { PodManager } from "./pod-manager.ts";
import type { PodWorkers, StatusManager } from "./types.ts";

export interface ActivePodsDeps {
  podManager: Pick<PodManager, "pods">;
  statusManager: Pick<StatusManager, "getPodPhase">;
  workers: Pick<PodWorkers, "isPodTerminationRequested">;
}

/** GetActivePods: the desired pods not asked to terminate and not in a terminal phase. */
export function createActivePods(deps: ActivePodsDeps): () => Pod[] {
  return () =>
    deps.podManager.pods().filter((p) => {
      const uid = podUID(p);
      const phase = deps.statusManager.getPodPhase(uid);
      return !deps.workers.isPodTerminationRequested(uid) && phase !== "Failed" && phase !== "Succeeded";
    });
}

/**
 * killPodNow: asks the pod's worker to kill it (as an eviction or not) and resolves once it can have
 * no running containers; rejects after max(grace × 1.5 s, 10 s), the kubelet's wait.
 */
export function killPodNow(
  deps: { podWorkers: Pick<PodWorkers, "updatePod">; clock: Pick<Clock, "setTimer"> },
  pod: Pod,
  gracePeriodSeconds: number,
  statusFn: (status: PodStatus) => void,
  evict: boolean,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timeoutMs = Math.max(gracePeriodSeconds * 1500, 10_000);
    const timer = deps.clock.setTimer(timeoutMs, () => reject(new Error(`timeout waiting to kill pod ${pod.metadata.namespace}/${pod.metadata.name}`)));
    deps.podWorkers.updatePod({
      updateType: "kill",
      pod,
      killPodOptions: {
        evict,
        gracePeriodSecondsOverride: gracePeriodSeconds,
        podStatusFn: statusFn,
        onCompleted: () => {
          timer.cancel();
          resolve();
        },
      },
    });
  });
}
