/**
 * Housekeeping (kubelet_pods.go HandlePodCleanups), run by the sync loop every 2 s once all
 * sources are ready. It reconciles the pod workers with the desired pods and the runtime: finished
 * workers of pods nobody wants are forgotten, desired pods no worker knows are (re)started, runtime
 * pods nobody wants are killed, and statuses and pod directories of pods gone for good are removed.
 * It only queues work for the pod workers; it never kills anything itself.
 */
import { isStaticPod, podFullName, podUID, podRef, type Pod } from "../api/index.ts";
import { runtimePodRef } from "../container/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import type { MirrorPods } from "../mirrorpods/index.ts";
import type { ProbeManager } from "../prober/index.ts";
import type { PodManager } from "./pod-manager.ts";
import type { PodDirs, PodWorkers, Runtime, StatusManager } from "./types.ts";

/** A housekeeping pass slower than this is logged (housekeepingWarningDuration). */
const HOUSEKEEPING_WARNING_MS = 1000;
/** Runtime pods unknown to the config are killed with this grace (seconds). */
const ORPHAN_GRACE_SECONDS = 1;

export interface HousekeepingDeps {
  podManager: PodManager;
  podWorkers: PodWorkers;
  runtime: Pick<Runtime, "getPods">;
  statusManager: Pick<StatusManager, "removeOrphanedStatuses" | "getPodPhase">;
  podDirs: PodDirs;
  /** Probe workers of pods that are not (possibly) running are stopped. */
  probeManager?: Pick<ProbeManager, "cleanupPods">;
  /** Mirror pods whose static pod is gone are deleted; undefined when standalone. */
  mirrorPods?: Pick<MirrorPods, "deleteOrphaned">;
  clock: Clock;
  log: Logger;
  metrics: Pick<Metrics, "orphanedRuntimePods">;
}

export function createHousekeeping(deps: HousekeepingDeps): { run(signal: AbortSignal): Promise<void> } {
  const { podManager, podWorkers, runtime, statusManager, podDirs, clock, log, metrics } = deps;

  /** A pod that reached a terminal phase and is not being terminated stays down (filterOutInactivePods). */
  const isInactive = (pod: Pod): boolean => {
    const uid = podUID(pod);
    if (podWorkers.isPodKnownTerminated(uid)) return true;
    const phase = statusManager.getPodPhase(uid) ?? pod.status?.phase;
    const terminal = phase === "Succeeded" || phase === "Failed";
    return terminal && !podWorkers.isPodTerminationRequested(uid);
  };

  async function removeOrphanedPodDirs(keep: Set<string>): Promise<void> {
    for (const uid of await podDirs.list()) {
      if (keep.has(uid)) continue;
      try {
        await podDirs.remove(uid);
        log.info("Cleaned up orphaned pod directory", { podUID: uid });
      } catch (err) {
        log.warn("Failed to remove orphaned pod directory; retrying at the next housekeeping", { podUID: uid, err });
      }
    }
  }

  async function run(signal: AbortSignal): Promise<void> {
    const start = clock.now();
    const desired = podManager.pods();
    const working = podWorkers.syncKnownPods(desired);
    // Only pods whose containers may run (syncing or terminating) keep their probe workers.
    const possiblyRunning = [...working].filter(([, w]) => w.state === "SyncPod" || w.state === "TerminatingPod").map(([uid]) => uid);
    deps.probeManager?.cleanupPods(possiblyRunning);

    let runtimePods;
    try {
      runtimePods = await runtime.getPods({ all: false, signal });
    } catch (err) {
      if (signal.aborted) return;
      log.error("Housekeeping could not list runtime pods; retrying at the next housekeeping", { err });
      return;
    }

    // Static pods wait while another pod of their full name still runs (one killed just below).
    podWorkers.observeRuntimePods(runtimePods);
    statusManager.removeOrphanedStatuses(podManager.uids());

    // Pod directories stay while anyone may still use them: desired pods, runtime pods, workers.
    const keep = new Set<string>([...podManager.uids(), ...runtimePods.map((p) => p.uid), ...working.keys()]);
    try {
      await removeOrphanedPodDirs(keep);
    } catch (err) {
      log.warn("Failed to list pod directories; retrying at the next housekeeping", { err });
    }

    // deleteOrphanedMirrorPods: a mirror pod whose static pod bunlet no longer runs goes.
    const staticNames = new Set(desired.filter(isStaticPod).map(podFullName));
    await deps.mirrorPods?.deleteOrphaned((fullName) => staticNames.has(fullName), signal);

    // Desired pods no worker knows: their worker finished and was purged because the UID was
    // reused (a static pod with a fixed UID, re-added), so they start again.
    for (const pod of desired) {
      const uid = podUID(pod);
      if (working.has(uid) || isInactive(pod)) continue;
      log.info("Pod will be restarted: it is desired and no pod worker knows it (UID reused)", { pod: podRef(pod), podUID: uid });
      podWorkers.updatePod({ updateType: "create", pod });
      working.set(uid, { state: "SyncPod", orphan: false });
    }

    // Runtime pods nobody knows (left by an earlier run, or removed while bunlet was down).
    for (const runningPod of runtimePods) {
      if (working.has(runningPod.uid)) continue;
      log.info("Killing orphaned runtime pod", {
        pod: runtimePodRef(runningPod),
        podUID: runningPod.uid,
        gracePeriodSeconds: ORPHAN_GRACE_SECONDS,
      });
      podWorkers.updatePod({
        updateType: "kill",
        runningPod,
        killPodOptions: { gracePeriodSecondsOverride: ORPHAN_GRACE_SECONDS },
      });
      working.set(runningPod.uid, { state: "TerminatingPod", orphan: true });
      metrics.orphanedRuntimePods.inc();
    }

    const took = clock.now() - start;
    if (took > HOUSEKEEPING_WARNING_MS) log.warn("Housekeeping took longer than expected", { seconds: took / 1000 });
  }

  return { run };
}
