/**
 * The sync handlers (kubelet.go HandlePodAdditions, HandlePodUpdates, HandlePodRemoves,
 * HandlePodReconcile, HandlePodSyncs): they keep the desired pods current and turn each change
 * into an update for the pod's worker. They never wait on the runtime; the workers do the work.
 */
import { isMirrorPod, podRef, podUID, type Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { needToReconcilePodReadiness } from "../status/index.ts";
import { sortByCreation, type PodManager } from "./pod-manager.ts";
import type { SourcesReady } from "./sources-ready.ts";
import type { ResizeHandlers } from "./allocation.ts";
import type { PodWorkers } from "./types.ts";

export interface PodHandlers {
  handlePodAdditions(pods: Pod[]): void;
  handlePodUpdates(pods: Pod[]): void;
  handlePodRemoves(pods: Pod[]): void;
  handlePodReconcile(pods: Pod[]): void;
  handlePodSyncs(pods: Pod[]): void;
}

export interface PodHandlersDeps {
  podManager: PodManager;
  podWorkers: Pick<PodWorkers, "updatePod">;
  sourcesReady: SourcesReady;
  /** Removes all containers of an evicted pod (the kubelet's podContainerDeletor, removeAll). */
  deleteAllContainers(uid: string): void;
  /**
   * canAdmitPod against the other desired pods: false when the pod was rejected (it then gets a
   * Failed status and an event, and no worker). Undefined admits every pod.
   */
  admitPod?(pod: Pod, existing: Pod[]): boolean;
  /** In-place resize: pods are admitted against allocations, and resizes are decided (allocation.ts). */
  resize?: ResizeHandlers;
  clock: Clock;
  log: Logger;
}

export function createPodHandlers(deps: PodHandlersDeps): PodHandlers {
  const { podManager, podWorkers, sourcesReady, clock, log } = deps;

  return {
    handlePodAdditions(pods) {
      const start = clock.now();
      const added: Pod[] = [];
      // Mirror pods are never run: they are the apiserver's copies of static pods (src/mirrorpods watches them).
      for (const pod of sortByCreation(pods.filter((p) => !isMirrorPod(p)))) {
        podManager.upsert(pod);
        const uid = podUID(pod);
        if (deps.admitPod && !deps.admitPod(pod, podManager.pods().filter((p) => podUID(p) !== uid))) continue;
        added.push(pod);
        podWorkers.updatePod({ updateType: "create", pod, startTime: start });
      }
      deps.resize?.podsAdded(added);
    },

    handlePodUpdates(pods) {
      const start = clock.now();
      for (const pod of pods.filter((p) => !isMirrorPod(p))) {
        const old = podManager.get(podUID(pod));
        podManager.upsert(pod);
        // A pod not admitted (yet) has no allocation, and nothing to resize.
        if (deps.resize && !deps.resize.podUpdated(old, pod)) continue;
        podWorkers.updatePod({ updateType: "update", pod, startTime: start });
      }
    },

    handlePodRemoves(pods) {
      for (const pod of pods.filter((p) => !isMirrorPod(p))) {
        podManager.remove(pod);
        deps.resize?.podRemoved(podUID(pod));
        // A source that has not spoken yet may still want the pod. Once all have, the first
        // housekeeping's syncKnownPods terminates workers of pods nobody wants.
        if (!sourcesReady.allReady()) {
          log.info("Skipping delete because sources aren't ready yet; housekeeping stops the pod once they are", {
            pod: podRef(pod),
            podUID: podUID(pod),
          });
          continue;
        }
        log.debug("Pod has been removed and must be killed", { pod: podRef(pod), podUID: podUID(pod) }, 3);
        podWorkers.updatePod({ updateType: "kill", pod });
      }
      deps.resize?.retry("pods_removed");
    },

    handlePodReconcile(pods) {
      const start = clock.now();
      for (const pod of pods.filter((p) => !isMirrorPod(p))) {
        const old = podManager.get(podUID(pod));
        podManager.upsert(pod);
        deps.resize?.podReconciled(old, pod);
        // A status-only change needs no sync, unless a client moved a readiness gate's condition:
        // then Ready must be generated anew from the pod's new status.
        if (needToReconcilePodReadiness(pod)) podWorkers.updatePod({ updateType: "sync", pod, startTime: start });
        // An evicted pod's containers can all go.
        if (pod.status?.phase === "Failed" && pod.status.reason === "Evicted") deps.deleteAllContainers(podUID(pod));
      }
      deps.resize?.reconciled();
    },

    handlePodSyncs(pods) {
      const start = clock.now();
      for (const pod of pods) podWorkers.updatePod({ updateType: "sync", pod, startTime: start });
    },
  };
}
