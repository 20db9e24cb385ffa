/**
 * What the pod workers know about one pod UID (pod_workers.go podSyncStatus). The lifecycle is a
 * named state with a transition table instead of the kubelet's timestamps-as-flags:
 *
 *   syncing ──> terminating ──> terminated ──> finished
 *                    └─────────────────────────────^   (runtime-only pods, pods never started)
 *
 * A finished UID takes no more updates until syncKnownPods forgets it. The status outlives its
 * worker (the async loop): the loop ends when the pod is finished, the status stays until purged.
 */
import { DefaultTerminationGracePeriodSeconds, type Pod, type PodStatus } from "../api/index.ts";
import type { Mailbox } from "../lib/index.ts";
import type { KillPodOptions, PodWorkType, UpdatePodOptions } from "./types.ts";

export type WorkerLifecycle = "syncing" | "terminating" | "terminated" | "finished";

export const lifecycleTransitions: Readonly<Record<WorkerLifecycle, readonly WorkerLifecycle[]>> = {
  syncing: ["terminating"],
  terminating: ["terminated", "finished"],
  terminated: ["finished"],
  finished: [],
};

/** The async loop that serves one UID; its doorbell coalesces notifications (latest wins). */
export interface WorkerHandle {
  doorbell: Mailbox<true>;
  /** Aborted to end the loop (pod finished or forgotten). */
  lifetime: AbortController;
}

export type PodStatusFn = (status: PodStatus) => void;

export class PodSyncStatus {
  readonly fullName: string;
  lifecycle: WorkerLifecycle = "syncing";
  /** An update is pending or being worked on. */
  working = false;
  /** The newest update the worker has not picked up yet; a newer one replaces it. */
  pendingUpdate: UpdatePodOptions | undefined;
  /** What the worker last acted on (pod and mirror pod carried over, kill options accumulated). */
  activeUpdate: UpdatePodOptions | undefined;
  readonly syncedAt: number;
  startedAt: number | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  /** Seconds, once terminating (0 = not computed yet); it only ever shrinks. */
  gracePeriod = 0;
  /** The worker saw the termination request: no new container will be started. */
  startedTerminating = false;
  deleted = false;
  evicted = false;
  /** A create arrived for this UID while it was terminating; housekeeping restarts it later. */
  restartRequested = false;
  /** A runtime-only kill arrived: the pod must go through a terminating sync even if never started. */
  observedRuntime = false;
  notifyPostTerminating: (() => void)[] = [];
  statusPostTerminating: PodStatusFn[] = [];
  /** Cancels the sync in flight (a new one is made after each cancellation). */
  sync: AbortController | undefined;
  worker: WorkerHandle | undefined;

  constructor(fullName: string, now: number) {
    this.fullName = fullName;
    this.syncedAt = now;
  }

  /**
   * A pod first seen with a terminal API phase and nothing running in the runtime (a kubelet
   * restart): it already went through termination, so only syncTerminatedPod is left to run.
   */
  static alreadyTerminated(fullName: string, now: number): PodSyncStatus {
    const status = new PodSyncStatus(fullName, now);
    status.lifecycle = "terminated";
    status.terminatingAt = now;
    status.terminatedAt = now;
    status.startedTerminating = true;
    return status;
  }

  /** Moves along the lifecycle; false (and no change) for a transition the table forbids. */
  transition(to: WorkerLifecycle, now: number): boolean {
    if (!lifecycleTransitions[this.lifecycle].includes(to)) return false;
    this.lifecycle = to;
    if (to === "terminating") this.terminatingAt = now;
    if (to === "terminated" || (to === "finished" && this.terminatedAt === undefined)) this.terminatedAt = now;
    return true;
  }

  workType(): PodWorkType {
    if (this.isTerminated()) return "TerminatedPod";
    if (this.isTerminationRequested()) return "TerminatingPod";
    return "SyncPod";
  }

  isTerminationRequested(): boolean {
    return this.lifecycle !== "syncing";
  }

  isTerminated(): boolean {
    return this.lifecycle === "terminated" || this.lifecycle === "finished";
  }

  isFinished(): boolean {
    return this.lifecycle === "finished";
  }

  isStarted(): boolean {
    return this.startedAt !== undefined;
  }

  /**
   * Records a picked-up update as the active one. A runtime-only update never replaces a known
   * pod spec; a missing mirror pod keeps the last one; kill options accumulate (eviction sticks,
   * the override is the already-shrunk grace period). startTime is per update and not kept.
   */
  mergeLastUpdate(other: UpdatePodOptions): void {
    const prev = this.activeUpdate;
    const merged: UpdatePodOptions = { updateType: other.updateType };
    merged.pod = prev?.pod === undefined || other.runningPod === undefined ? other.pod : prev.pod;
    merged.runningPod = other.runningPod;
    merged.mirrorPod = other.mirrorPod ?? prev?.mirrorPod;
    merged.killPodOptions = prev?.killPodOptions;
    if (other.killPodOptions) {
      const kill: KillPodOptions = {};
      if (other.killPodOptions.evict || prev?.killPodOptions?.evict) kill.evict = true;
      if (other.killPodOptions.gracePeriodSecondsOverride !== undefined) {
        kill.gracePeriodSecondsOverride = other.killPodOptions.gracePeriodSecondsOverride;
      }
      merged.killPodOptions = kill;
    }
    this.activeUpdate = merged;
  }

  /** Replays the active update when nothing is pending, so the next lifecycle step runs at once. */
  requeueLastUpdate(): void {
    if (this.pendingUpdate !== undefined || this.activeUpdate === undefined) return;
    this.pendingUpdate = { ...this.activeUpdate };
    this.working = true;
    this.ring();
  }

  ring(): void {
    this.worker?.doorbell.put(true);
  }

  /** Marks that the worker saw the termination and returns the status function that applies. */
  acknowledgeTerminating(): PodStatusFn | undefined {
    if (this.isTerminationRequested()) this.startedTerminating = true;
    return this.statusPostTerminating.at(-1);
  }

  /** Takes the kill callbacks waiting for "no container can run any more". */
  takeCompletions(): (() => void)[] {
    const callbacks = this.notifyPostTerminating;
    this.notifyPostTerminating = [];
    this.statusPostTerminating = [];
    return callbacks;
  }

  /** Ends the worker loop (the status itself stays). */
  closeWorker(): void {
    this.worker?.lifetime.abort();
    this.worker = undefined;
  }
}

/**
 * calculateEffectiveGracePeriod: the apiserver's deletion grace and any kill override may only
 * shorten what is already set; the pod's own terminationGracePeriodSeconds applies when nothing
 * else did; never below 1 s. `shortened` says a running terminating sync should be redone.
 */
export function calculateEffectiveGracePeriod(
  current: number,
  pod: Pod,
  options: KillPodOptions | undefined,
): { gracePeriod: number; shortened: boolean } {
  let gracePeriod = current;
  let overridden = false;
  const deletionGrace = pod.metadata.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined && (gracePeriod === 0 || deletionGrace < gracePeriod)) {
    gracePeriod = deletionGrace;
    overridden = true;
  }
  const override = options?.gracePeriodSecondsOverride;
  if (override !== undefined && (gracePeriod === 0 || override < gracePeriod)) {
    gracePeriod = override;
    overridden = true;
  }
  const specGrace = pod.spec.terminationGracePeriodSeconds;
  if (!overridden && gracePeriod === 0 && specGrace !== undefined) gracePeriod = specGrace;
  if (gracePeriod < 1) gracePeriod = 1;
  return { gracePeriod, shortened: current !== 0 && current !== gracePeriod };
}

/**
 * The grace period of a terminating sync that no kill set (a pod that finished on its own):
 * what the kubelet's killPod falls back to when it gets no override.
 */
export function naturalGracePeriod(pod: Pod): number {
  const grace =
    pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds;
  return Math.max(1, grace);
}
