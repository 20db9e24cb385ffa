/**
 * What the parts of the pod workers share, owned by createPodWorkers: the status of every known
 * pod UID, the static pod start gate, and whether syncKnownPods ran. Everything runs on one
 * thread, so each change to it is one synchronous step (the kubelet's podLock sections).
 */
import { StaticPodStartGate } from "./static-pods.ts";
import type { PodSyncStatus } from "./sync-status.ts";

export class WorkerTable {
  readonly statuses = new Map<string, PodSyncStatus>();
  readonly gate = new StaticPodStartGate();
  /** syncKnownPods ran once: every desired pod has been handed to updatePod. */
  podsSynced = false;

  /** No worker has an update pending or in progress. */
  idle(): boolean {
    for (const status of this.statuses.values()) if (status.working) return false;
    return true;
  }
}
