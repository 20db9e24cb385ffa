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
import { workingPodCounts } from "./pod-counts.ts";
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
  /** Pod cgroups of pods that can no longer run are removed (cleanupOrphanedPodCgroups); undefined without cgroupsPerQOS. */
  podCgroups?: { cleanupOrphaned(keep: ReadonlySet<string>): void };
  /** Mirror pods whose static pod is gone are deleted; undefined when standalone. */
  mirrorPods?: Pick<MirrorPods, "deleteOrphaned" | "count">;
  /**
   * Frees the user namespace ranges of pods nobody knows whose directory is gone
   * (CleanupOrphanedPodUsernsAllocations); undefined without a user namespace manager.
   */
  cleanupUserNamespaces?(known: ReadonlySet<string>, onDisk: ReadonlySet<string>): void;
  /** Drops the allocated and actuated resources of pods not desired any more (RemoveOrphanedPods). */
  removeOrphanedAllocations?(keep: ReadonlySet<string>): void;
  clock: Clock;
  log: Logger;
  metrics: Pick<Metrics, "orphanedRuntimePods" | "orphanPodCleanedVolumes" | "orphanPodCleanedVolumesErrors" | "desiredPods" | "activePods" | "mirrorPods" | "workingPods" | "restartedPods">;
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
    // The sweep's counts (cleanupOrphanedPodDirs): orphaned pods found, and those that failed.
    let total = 0;
    let failed = 0;
    for (const uid of await podDirs.list()) {
      if (keep.has(uid)) continue;
      total++;
      try {
        await podDirs.remove(uid);
        log.info("Cleaned up orphaned pod directory", { podUID: uid });
      } catch (err) {
        failed++;
        log.warn("Failed to remove orphaned pod directory; retrying at the next housekeeping", { podUID: uid, err });
      }
    }
    metrics.orphanPodCleanedVolumes.set(total);
    metrics.orphanPodCleanedVolumesErrors.set(failed);
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
    deps.removeOrphanedAllocations?.(podManager.uids());

    // Pod directories stay while anyone may still use them: desired pods, runtime pods, workers.
    const keep = new Set<string>([...podManager.uids(), ...runtimePods.map((p) => p.uid), ...working.keys()]);
    try {
      await removeOrphanedPodDirs(keep);
      // After the sweep: a range stays while its pod's directory (and what the pod wrote) remains.
      if (deps.cleanupUserNamespaces) deps.cleanupUserNamespaces(keep, new Set(await podDirs.list()));
    } catch (err) {
      log.warn("Failed to list pod directories; retrying at the next housekeeping", { err });
    }

    // Pod cgroups stay while their pod may run: being synced or terminated, running in the
    // runtime, or desired and not yet finished. Decided and done in one synchronous step, so a
    // pod cgroup made meanwhile by a pod worker is never taken for an orphan.
    if (deps.podCgroups) {
      const mayRun = new Set<string>([...possiblyRunning, ...runtimePods.map((p) => p.uid)]);
      for (const uid of podManager.uids()) if (!podWorkers.isPodKnownTerminated(uid)) mayRun.add(uid);
      try {
        deps.podCgroups.cleanupOrphaned(mayRun);
      } catch (err) {
        log.warn("Failed to clean up orphaned pod cgroups; retrying at the next housekeeping", { err });
      }
    }

    // deleteOrphanedMirrorPods: a mirror pod whose static pod bunlet no longer runs goes.
    const staticNames = new Set(desired.filter(isStaticPod).map(podFullName));
    await deps.mirrorPods?.deleteOrphaned((fullName) => staticNames.has(fullName), signal);

    // The pod manager's counts, after terminated workers were pruned (isInactive reads them).
    const active = desired.filter((p) => !isInactive(p));
    const staticLabel = (p: Pod) => (isStaticPod(p) ? "true" : "");
    for (const label of ["", "true"]) {
      metrics.desiredPods.set({ static: label }, desired.filter((p) => staticLabel(p) === label).length);
      metrics.activePods.set({ static: label }, active.filter((p) => staticLabel(p) === label).length);
    }
    metrics.mirrorPods.set(deps.mirrorPods?.count() ?? 0);

    // Desired pods no worker knows: their worker finished and was purged because the UID was
    // reused (a static pod with a fixed UID, re-added), so they start again.
    const restarted = { "": 0, true: 0 };
    for (const pod of desired) {
      const uid = podUID(pod);
      if (working.has(uid) || isInactive(pod)) continue;
      log.info("Pod will be restarted: it is desired and no pod worker knows it (UID reused)", { pod: podRef(pod), podUID: uid });
      podWorkers.updatePod({ updateType: "create", pod });
      working.set(uid, { state: "SyncPod", orphan: false, hasConfig: true, static: isStaticPod(pod) });
      restarted[staticLabel(pod) as "" | "true"]++;
    }
    // Added even when 0, as the kubelet does, so both series exist from the first pass.
    for (const [label, n] of Object.entries(restarted)) metrics.restartedPods.inc({ static: label }, n);

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
      working.set(runningPod.uid, { state: "TerminatingPod", orphan: true, hasConfig: false, static: false });
      metrics.orphanedRuntimePods.inc();
    }
    for (const w of workingPodCounts(working.values())) metrics.workingPods.set({ lifecycle: w.lifecycle, config: w.config, static: w.static }, w.count);

    const took = clock.now() - start;
    if (took > HOUSEKEEPING_WARNING_MS) log.warn("Housekeeping took longer than expected", { seconds: took / 1000 });
  }

  return { run };
}
