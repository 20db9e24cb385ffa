/**
 * The pod workers, as the parts built before them reach them. In the kubelet, Kubelet and
 * podWorkers point at each other: the workers run the Kubelet's SyncPod, which asks the workers
 * whether a pod is being terminated, and the allocation manager and the mirror pods ask for a
 * pod to be synced (HandlePodSyncs). Here this reference is made first, handed to both sides,
 * and connected once, to the workers, as soon as they exist. Nothing can need them earlier: no
 * pod syncs before the sync loop starts, which is after the connection.
 */
import { podUID, type Pod } from "../api/index.ts";
import type { Clock } from "../lib/index.ts";
import type { PodWorkers } from "./types.ts";

type Workers = Pick<PodWorkers, "updatePod" | "isPodTerminationRequested">;

export class PodWorkersRef {
  #workers: Workers | undefined;

  constructor(private readonly clock: Pick<Clock, "now">) {}

  /** Connects the workers; a second connection is a wiring mistake and throws. */
  connect(workers: Workers): void {
    if (this.#workers) throw new Error("the pod workers are connected already: the wiring built them twice");
    this.#workers = workers;
  }

  /** IsPodTerminationRequested; false before the workers exist (no pod was asked to terminate yet). */
  isPodTerminationRequested(uid: string): boolean {
    return this.#workers?.isPodTerminationRequested(uid) ?? false;
  }

  /** HandlePodSyncs: a sync of each pod by its worker; before the workers exist there is nothing to sync. */
  syncPods(pods: Pod[]): void {
    const workers = this.#workers;
    if (!workers) return;
    const start = this.clock.now();
    for (const pod of pods) workers.updatePod({ updateType: "sync", pod, startTime: start });
  }

  /** Syncs a pod and has the PLEG look at it now (after a resize was allocated, which no container event shows). */
  syncPodAndRelist(pod: Pod, requestPodRelist: (uid: string) => void): void {
    this.syncPods([pod]);
    requestPodRelist(podUID(pod));
  }
}
