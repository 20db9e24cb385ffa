/**
 * The pod syncer: what a pod worker runs for one pod (kubelet.go SyncPod, SyncTerminatingPod,
 * SyncTerminatingRuntimePod, SyncTerminatedPod). It owns no state of its own: it computes the API
 * status, records it in the status manager, prepares the pod's directories and hands the CRI work
 * to the runtime manager. The pod workers own the lifecycle and call these in order.
 */
import { isStaticPod, podRef, podUID, type Pod, type PodStatus } from "../api/index.ts";
import { EventReason, podReference, type EventRecorder } from "../events/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import type { MirrorPods } from "../mirrorpods/index.ts";
import type { PodSyncer, SyncPodType } from "../podworkers/index.ts";
import type { ProbeManager } from "../prober/index.ts";
import { runningPodFromStatus, runtimePodRef, type RuntimePodStatus } from "../container/index.ts";
import { Reason, SyncError, type PodSyncResult } from "../runtime/index.ts";
import type { StatusGenerator } from "../status/index.ts";
import type { PodManager } from "./pod-manager.ts";
import type { PodDirs, Runtime, StatusManager } from "./types.ts";

/** KillPod reported success but a container still runs (kubelet: "CRI violation"). */
export class ContainersStillRunningError extends Error {
  constructor(pod: Pod, ids: string[]) {
    super(`detected running containers after a successful KillPod, CRI violation: pod=${podRef(pod)} containers=${ids.join(",")}`);
    this.name = "ContainersStillRunningError";
  }
}

export interface PodSyncerDeps {
  runtime: Runtime;
  statusManager: StatusManager;
  generateStatus: StatusGenerator;
  podDirs: PodDirs;
  podManager: PodManager;
  /** The probe workers: started for a pod being synced, stopped when it terminates. */
  probeManager?: Pick<ProbeManager, "addPod" | "stopLivenessAndStartup" | "removePod">;
  /** The pod workers' IsPodTerminationRequested (through the PodWorkersRef: the workers are built with this syncer). */
  isTerminationRequested(uid: string): boolean;
  /** Why the pod network is not ready, or undefined when it is (from the runtime health check). */
  networkNotReady(): string | undefined;
  recorder: EventRecorder;
  /** The static pods' mirror pods; undefined when standalone. */
  mirrorPods?: Pick<MirrorPods, "sync">;
  /**
   * Sets up the volumes the pod's containers mount (the kubelet's WaitForAttachAndMount); throws
   * when one cannot be set up, and then the pod gets no sandbox and no containers.
   */
  mountVolumes(pod: Pod, signal: AbortSignal): Promise<void>;
  /** Tears down the pod's volumes once its containers are gone (the kubelet's unmount of a terminated pod). */
  unmountVolumes(uid: string): Promise<void>;
  /**
   * The pod's cgroup (the container manager's pod container manager): made before the sandbox,
   * removed once the pod's containers are gone. Absent: pods get the runtime's default cgroup.
   */
  podCgroups?: PodCgroups;
  /**
   * Frees a terminated pod's user namespace range (the kubelet's usernsManager.Release), once its
   * volumes are torn down: never while files the range wrote may still be mounted.
   */
  releaseUserNamespace?(uid: string): void;
  /** Relists the pod at once (the PLEG's on-demand relist), after a sync that changed it. */
  requestPodRelist(uid: string): void;
  /** Reads the pod's status anew and syncs it (after an in-place resize, which no container event shows). */
  requestPodReinspect?(uid: string): void;
  /** In-place resize: PodResizeInProgress before the status, a failure to apply after the runtime sync. */
  resize?: {
    beforeSync(pod: Pod, podStatus: RuntimePodStatus): void;
    afterSync(pod: Pod, result: PodSyncResult): void;
  };
  clock: Clock;
  log: Logger;
  metrics: Pick<Metrics, "podStartDuration" | "podWorkerStartDuration">;
}

export interface PodCgroups {
  exists(pod: Pod): boolean;
  /** Creates the pod cgroup with the pod's values when it is missing; throws when it cannot. */
  ensure(pod: Pod): void;
  /** Removes it; a busy one is retried by housekeeping. */
  destroy(pod: Pod): void;
}

export function createPodSyncer(deps: PodSyncerDeps): PodSyncer {
  const { runtime, statusManager, generateStatus, podDirs, podManager, clock, log, metrics } = deps;

  function observePodStart(pod: Pod, old: PodStatus | undefined, next: PodStatus): void {
    // Only a transition we watched counts: a pod adopted Running after a bunlet restart has no
    // meaningful start duration.
    if (old?.phase !== "Pending" || next.phase !== "Running") return;
    const firstSeen = podManager.firstSeen(podUID(pod));
    if (firstSeen === undefined) return;
    const seconds = Math.max(0, clock.now() - firstSeen) / 1000;
    metrics.podStartDuration.observe(seconds);
    log.info("Pod is running", { pod: podRef(pod), podUID: podUID(pod), sinceFirstSeenSeconds: seconds });
  }

  /**
   * SyncPod's cgroup step: a pod whose containers run outside a pod cgroup (started before
   * cgroupsPerQOS, or its cgroup removed) is killed so that it comes back inside one; a run-once
   * pod killed so stays down. Returns false when the pod is not to be started now.
   */
  async function ensurePodCgroup(cgroups: PodCgroups, pod: Pod, apiStatus: PodStatus, podStatus: RuntimePodStatus, signal: AbortSignal): Promise<boolean> {
    if (cgroups.exists(pod)) return true;
    const firstSync = !(apiStatus.containerStatuses ?? []).some((c) => c.state?.running !== undefined);
    if (!firstSync) {
      log.info("Pod runs outside its pod cgroup; killing it so it restarts inside one", { pod: podRef(pod), podUID: podUID(pod) });
      const killed = await runtime.killPod(pod, runningPodFromStatus(podStatus), { signal });
      if (killed.error === undefined && pod.spec.restartPolicy === "Never") return false;
    }
    try {
      cgroups.ensure(pod);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      deps.recorder.event(podReference(pod), "Warning", EventReason.FailedToCreatePodContainer, `unable to ensure pod container exists: ${message}`);
      throw new Error(`failed to ensure that the pod: ${podUID(pod)} cgroups exist and are correctly applied: ${message}`);
    }
    return true;
  }

  return {
    async syncPod(signal, updateType: SyncPodType, pod, _mirrorPod, podStatus) {
      const uid = podUID(pod);
      // The first sync of a pod: how long it waited for its worker since bunlet first saw it.
      const firstSeen = updateType === "create" ? podManager.firstSeen(uid) : undefined;
      if (firstSeen !== undefined) metrics.podWorkerStartDuration.observe(Math.max(0, clock.now() - firstSeen) / 1000);
      deps.resize?.beforeSync(pod, podStatus);
      const apiStatus = generateStatus(pod, podStatus, { podIsTerminal: false });
      if (apiStatus.phase === "Succeeded" || apiStatus.phase === "Failed") {
        statusManager.setPodStatus(pod, apiStatus);
        return { isTerminal: true };
      }
      observePodStart(pod, statusManager.getPodStatus(uid), apiStatus);
      statusManager.setPodStatus(pod, apiStatus);

      // A pod on its way out must not get new containers; the worker is about to terminate it.
      if (pod.metadata.deletionTimestamp || deps.isTerminationRequested(uid)) {
        log.debug("Pod is terminating, not starting anything", { pod: podRef(pod), podUID: uid, updateType }, 4);
        return { isTerminal: false };
      }
      const networkProblem = deps.networkNotReady();
      // The workers retry a pod that failed with NetworkNotReady after ~1 s instead of their error backoff.
      if (networkProblem !== undefined && !pod.spec.hostNetwork) {
        const message = `network is not ready: ${networkProblem}`;
        deps.recorder.event(podReference(pod), "Warning", EventReason.NetworkNotReady, message);
        throw new SyncError(Reason.NetworkNotReady, message);
      }

      if (deps.podCgroups && !(await ensurePodCgroup(deps.podCgroups, pod, apiStatus, podStatus, signal))) return { isTerminal: false };
      if (isStaticPod(pod)) await deps.mirrorPods?.sync(pod, signal);
      await podDirs.make(uid);
      signal.throwIfAborted();
      await deps.mountVolumes(pod, signal);
      deps.probeManager?.addPod(pod);
      const result = await runtime.syncPod(pod, podStatus, { signal });
      deps.resize?.afterSync(pod, result);
      // A resize (even a partial one) shows in no container event: read the pod anew.
      if (result.steps.some((s) => s.action === "ResizePodInPlace")) deps.requestPodReinspect?.(uid);
      if (result.error !== undefined) {
        // The failure (CrashLoopBackOff, ImagePullBackOff, ErrImagePull, ...) is now in the
        // runtime's reason cache: show it at once rather than at the next sync, which may be
        // 10-15 s away, so /pods says why the container waits for the whole wait.
        statusManager.setPodStatus(pod, generateStatus(pod, podStatus, { podIsTerminal: false }));
        throw result.error;
      }
      // Something was started or killed: have the PLEG look at this pod now, not at its next relist.
      if (result.steps.length === 0) return { isTerminal: false };
      return { isTerminal: false, postSync: () => deps.requestPodRelist(uid) };
    },

    async syncTerminatingPod(signal, pod, podStatus, gracePeriodSeconds, podStatusFn) {
      // Nothing is restarted any more: a liveness or startup failure must not kill a container
      // out of its turn. Readiness keeps running until the containers are stopped.
      deps.probeManager?.stopLivenessAndStartup(podUID(pod));
      const apiStatus = generateStatus(pod, podStatus, { podIsTerminal: false });
      podStatusFn?.(apiStatus);
      statusManager.setPodStatus(pod, apiStatus);

      log.debug("Pod terminating", { pod: podRef(pod), podUID: podUID(pod), gracePeriodSeconds }, 2);
      const killed = await runtime.killPod(pod, runningPodFromStatus(podStatus), { gracePeriodOverride: gracePeriodSeconds, signal });
      if (killed.error !== undefined) throw killed.error;

      const stopped = await runtime.getPodStatus(podUID(pod), pod.metadata.name ?? "", pod.metadata.namespace ?? "", { signal });
      const running = stopped.containerStatuses.filter((c) => c.state === "running").map((c) => c.id);
      if (running.length > 0) throw new ContainersStillRunningError(pod, running);
      deps.probeManager?.removePod(podUID(pod));
      statusManager.setPodStatus(pod, generateStatus(pod, stopped, { podIsTerminal: true }));
    },

    async syncTerminatingRuntimePod(signal, runningPod) {
      // An orphan has no spec (so no grace period of its own): the kubelet gives it one second.
      // Housekeeping logged "Killing orphaned runtime pod" when it asked for this kill.
      log.debug("SyncTerminatingRuntimePod enter", { pod: runtimePodRef(runningPod), podUID: runningPod.uid }, 4);
      const killed = await runtime.killPod(undefined, runningPod, { gracePeriodOverride: 1, signal });
      if (killed.error !== undefined) throw killed.error;
    },

    async syncTerminatedPod(_signal, pod, podStatus) {
      const uid = podUID(pod);
      statusManager.setPodStatus(pod, generateStatus(pod, podStatus, { podIsTerminal: true }));
      statusManager.terminatePod(pod);
      runtime.forgetPod(uid);
      let unmounted = true;
      try {
        await deps.unmountVolumes(uid);
      } catch (err) {
        unmounted = false;
        log.warn("Could not tear down the volumes of a terminated pod; housekeeping retries", { pod: podRef(pod), podUID: uid, err });
      }
      // Its containers are gone: the pod cgroup goes too (a busy one is retried by housekeeping).
      if (deps.podCgroups) {
        deps.podCgroups.destroy(pod);
        log.debug("Pod termination removed cgroups", { pod: podRef(pod), podUID: uid }, 4);
      }
      // Volumes still mounted: housekeeping frees the range once the pod directory is gone.
      if (unmounted) deps.releaseUserNamespace?.(uid);
      // A terminated pod that is still desired (a completed run-once pod) keeps its directory and
      // status; one that is gone from its source or being deleted leaves nothing behind.
      const desired = podManager.get(uid);
      if (desired && !desired.metadata.deletionTimestamp) return;
      // An apiserver pod being deleted keeps its final status: the status sync sends it and then
      // deletes the pod object, and the status goes with the pod (housekeeping's orphan cleanup).
      if (desired === undefined || isStaticPod(desired)) statusManager.deletePodStatus(uid);
      try {
        await podDirs.remove(uid);
      } catch (err) {
        log.warn("Could not remove the directory of a terminated pod; housekeeping retries", {
          pod: podRef(pod),
          podUID: uid,
          err,
        });
        return;
      }
      log.debug("Pod cleaned up", { pod: podRef(pod), podUID: uid }, 2);
    },
  };
}
