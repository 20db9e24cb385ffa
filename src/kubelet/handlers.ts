/**
 * The sync handlers (kubelet.go HandlePodAdditions, HandlePodUpdates, HandlePodRemoves,
 * HandlePodReconcile, HandlePodSyncs): they keep the desired pods current and turn each change
 * into an update for the pod's worker. They never wait on the runtime; the workers do the work.
 */
import { podRef, podUID, type Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { sortByCreation, type PodManager } from "./pod-manager.ts";
import type { SourcesReady } from "./sources-ready.ts";
import type { PodWorkers } from "./types.ts";

export interface PodHandlers {
  handlePodAdditions(pods: Pod[]): void;
  handlePodUpdates(pods: Pod[]): void;
  handlePodRemoves(pods: Pod[]): void;
  handlePodReconcile(pods: Pod[]): void;
  handlePodSyncs(pods: Pod[]): void;
  /**
   * Kills pods whose removal arrived before every source was ready and that are still not desired.
   * Housekeeping calls it (it only runs once the sources are ready).
   */
  killDeferredRemovals(): void;
}

export interface PodHandlersDeps {
  podManager: PodManager;
  podWorkers: Pick<PodWorkers, "updatePod">;
  sourcesReady: SourcesReady;
  /** Removes all containers of an evicted pod (the kubelet's podContainerDeletor, removeAll). */
  deleteAllContainers(uid: string): void;
  clock: Clock;
  log: Logger;
}

export function createPodHandlers(deps: PodHandlersDeps): PodHandlers {
  const { podManager, podWorkers, sourcesReady, clock, log } = deps;
  // Pods removed from their source before all sources were ready: the kubelet skips the kill
  // ("sources aren't ready yet"); bunlet remembers them so the pod does not run on unowned.
  const deferredRemovals = new Map<string, Pod>();

  const kill = (pod: Pod) => {
    log.debug("Pod has been removed and must be killed", { pod: podRef(pod), podUID: podUID(pod) }, 3);
    podWorkers.updatePod({ updateType: "kill", pod });
  };

  return {
    handlePodAdditions(pods) {
      const start = clock.now();
      for (const pod of sortByCreation(pods)) {
        deferredRemovals.delete(podUID(pod));
        podManager.upsert(pod);
        // bunlet has no admission handlers (no node allocatable, affinity or host-port checks yet):
        // every pod from a source is admitted.
        podWorkers.updatePod({ updateType: "create", pod, startTime: start });
      }
    },

    handlePodUpdates(pods) {
      const start = clock.now();
      for (const pod of pods) {
        podManager.upsert(pod);
        podWorkers.updatePod({ updateType: "update", pod, startTime: start });
      }
    },

    handlePodRemoves(pods) {
      for (const pod of pods) {
        podManager.remove(pod);
        if (!sourcesReady.allReady()) {
          log.info("Skipping delete because sources aren't ready yet; the pod is killed once they are", {
            pod: podRef(pod),
            podUID: podUID(pod),
          });
          deferredRemovals.set(podUID(pod), pod);
          continue;
        }
        kill(pod);
      }
    },

    handlePodReconcile(pods) {
      for (const pod of pods) {
        podManager.upsert(pod);
        // Status-only change: nothing to sync (bunlet has no readiness gates). An evicted pod's
        // containers can all go.
        if (pod.status?.phase === "Failed" && pod.status.reason === "Evicted") deps.deleteAllContainers(podUID(pod));
      }
    },

    handlePodSyncs(pods) {
      const start = clock.now();
      for (const pod of pods) podWorkers.updatePod({ updateType: "sync", pod, startTime: start });
    },

    killDeferredRemovals() {
      for (const [uid, pod] of deferredRemovals) {
        deferredRemovals.delete(uid);
        if (!podManager.has(uid)) kill(pod);
      }
    },
  };
}
