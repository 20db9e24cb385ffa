/**
 * What the pod workers know about one pod UID (pod_workers.go podSyncStatus): its lifecycle state
 * (lifecycle.ts), the updates it was sent, its grace period and the callbacks waiting for its
 * termination. The status outlives its worker (the async loop): the loop ends when the pod is
 * finished, the status stays until syncKnownPods forgets it. A finished UID takes no more updates.
 */
import { DefaultTerminationGracePeriodSeconds, type Pod, type PodStatus } from "../api/index.ts";
import type { Mailbox } from "../lib/index.ts";
import * as lifecycle from "./worker-state.ts";
import type { KillPodOptions, PodWorkType, UpdatePodOptions } from "./types.ts";

/** The async loop that serves one UID; its doorbell coalesces notifications (latest wins). */
export interface WorkerHandle {
  doorbell: Mailbox<true>;
  /** Aborted to end the loop (pod finished or forgotten). */
  lifetime: AbortController;
}

export type PodStatusFn = (status: PodStatus) => void;

export class PodSyncStatus {
  readonly fullName: string;
  state: lifecycle.WorkerState;
  /** An update is pending or being worked on. */
  working = false;
  /** The newest update the worker has not picked up yet; a newer one replaces it. */
  pendingUpdate: UpdatePodOptions | undefined;
  /** What the worker last acted on (pod and mirror pod carried over, kill options accumulated). */
  activeUpdate: UpdatePodOptions | undefined;
  readonly syncedAt: number;
  startedAt: number | undefined;
  /** Seconds, once terminating (0 = not computed yet); it only ever shrinks. */
  gracePeriod = 0;
  notifyPostTerminating: (() => void)[] = [];
  statusPostTerminating: PodStatusFn[] = [];
  /** Cancels the sync in flight (a new one is made after each cancellation). */
  sync: AbortController | undefined;
  worker: WorkerHandle | undefined;

  constructor(fullName: string, now: number, state: lifecycle.WorkerState = lifecycle.syncing) {
    this.fullName = fullName;
    this.syncedAt = now;
    this.state = state;
  }

  workType(): PodWorkType {
    return lifecycle.workType(this.state);
  }

  isTerminationRequested(): boolean {
    return lifecycle.isTerminationRequested(this.state);
  }

  isTerminated(): boolean {
    return lifecycle.isTerminated(this.state);
  }

  isFinished(): boolean {
    return this.state.kind === "finished";
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
    this.state = lifecycle.acknowledgeTermination(this.state);
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
