/**
 * How a pod worker moves a pod along its lifecycle once a turn is over (pod_workers.go
 * completeSync / completeTerminating / completeTerminated / completeWork / removeTerminatedWorker),
 * plus the bookkeeping every step shares: idle tracking for whenIdle, the worker duration
 * metric, pod-scoped logs. Each method is one synchronous state change of the worker table.
 */
import { podRef, type ObjectRef } from "../api/index.ts";
import { runtimePodRef } from "../container/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import * as lifecycle from "./worker-state.ts";
import { defaultBackOffPeriodMs, requeueDelay } from "./requeue.ts";
import type { PodWork, WorkResult } from "./run-work.ts";
import { calculateEffectiveGracePeriod, type PodSyncStatus } from "./sync-status.ts";
import type { WorkerTable } from "./table.ts";
import type { PodStatusCache, PodSyncer, UpdatePodOptions } from "./types.ts";
import type { WorkQueue } from "./work-queue.ts";

export interface PodWorkersDeps {
  syncer: PodSyncer;
  cache: PodStatusCache;
  workQueue: Pick<WorkQueue, "enqueue">;
  clock: Clock;
  random: () => number;
  log: Logger;
  metrics: Pick<Metrics, "podWorkerDuration" | "containersPerPodCount">;
  /** syncFrequency: how often a healthy pod is synced again (1 min by default). */
  resyncIntervalMs: number;
  /** The worker's error backoff (10 s by default). */
  backOffPeriodMs?: number;
  /** Aborting it stops every worker, like stop(). */
  signal: AbortSignal;
}

/** Resolves whenIdle() callers once no worker is working (or the workers stopped). */
export class IdleWaiters {
  #waiters: (() => void)[] = [];

  constructor(private readonly isIdle: () => boolean) {}

  check(): void {
    if (this.#waiters.length === 0 || !this.isIdle()) return;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

export class LifecycleSteps {
  readonly backOffPeriodMs: number;

  constructor(
    private readonly table: WorkerTable,
    private readonly deps: PodWorkersDeps,
    private readonly idle: IdleWaiters,
  ) {
    this.backOffPeriodMs = deps.backOffPeriodMs ?? defaultBackOffPeriodMs;
  }

  /**
   * Frees a static pod's full name and wakes the pods waiting for it at the next sync tick, so
   * the new version of an edited manifest starts as soon as the old one is gone rather than
   * after its 10-15 s retry (the kubelet waits for that retry).
   */
  releaseStaticName(fullName: string, uid: string): void {
    this.table.gate.release(fullName, uid);
    this.wakeStaticWaiters(fullName);
  }

  /** Queues the pods waiting for fullName for the next sync tick, if nobody holds it any more. */
  wakeStaticWaiters(fullName: string): void {
    const { gate } = this.table;
    if (gate.holder(fullName) !== undefined) return;
    for (const waiter of gate.waiting(fullName)) this.deps.workQueue.enqueue(waiter, 0);
  }

  /** A static pod terminated before it could start: nothing ran, so it is finished at once. */
  finishUnstarted(uid: string, status: PodSyncStatus, pending: UpdatePodOptions): void {
    this.#finish(uid, status);
    runCallbacks(status.takeCompletions(), this.deps.log);
    this.observe("terminated", pending.startTime);
  }

  /** Moves the lifecycle on after a turn; true when the worker is done for good. */
  completeStep(uid: string, work: PodWork, result: WorkResult, signal: AbortSignal): boolean {
    const status = this.table.statuses.get(uid);
    const log = this.workLog(uid, work);
    const now = this.deps.clock.now();
    let phaseTransition = false;
    if (result.error !== undefined) {
      if (signal.aborted) log.debug("Pod sync was cancelled; the newer update runs next");
      else log.error("Error syncing pod, will retry after a backoff", { err: result.error });
    } else if (status !== undefined && work.workType === "TerminatedPod") {
      this.#finish(uid, status);
      this.observe("terminated", work.options.startTime);
      return true;
    } else if (status !== undefined && work.workType === "TerminatingPod") {
      if (work.options.runningPod !== undefined) {
        // An orphan has no config to report status for: once stopped, forget it entirely.
        this.#finish(uid, status);
        this.table.statuses.delete(uid);
        runCallbacks(status.takeCompletions(), log);
        this.observe(work.options.updateType, work.options.startTime);
        return true;
      }
      status.state = lifecycle.completeTerminating(status.state, now);
      runCallbacks(status.takeCompletions(), log);
      status.requeueLastUpdate();
      phaseTransition = true;
    } else if (status !== undefined && result.isTerminal) {
      // The pod ended on its own (Succeeded/Failed): stop its containers next, without waiting.
      if (status.isTerminationRequested()) log.debug("Pod reported terminal while already terminating");
      status.state = lifecycle.acknowledgeTermination(lifecycle.requestTermination(status.state, "ended", now));
      status.requeueLastUpdate();
      phaseTransition = true;
    }
    this.#completeWork(uid, phaseTransition, result.error);
    this.observe(work.options.updateType, work.options.startTime);
    return false;
  }

  /** SyncKnownPods' removal of a worker; true when its history is gone. */
  removeTerminatedWorker(uid: string, status: PodSyncStatus, orphaned: boolean): boolean {
    if (!status.isFinished()) {
      if (!orphaned) return false;
      // Nobody will send updates for an orphan any more: the worker must finish it by itself.
      if (status.isStarted() || lifecycle.observedRuntime(status.state)) {
        if (!status.isTerminationRequested()) {
          status.state = lifecycle.requestTermination(status.state, "deleted", this.deps.clock.now());
          const pod = status.activeUpdate?.pod;
          status.gracePeriod = pod ? calculateEffectiveGracePeriod(status.gracePeriod, pod, undefined).gracePeriod : 1;
        } else {
          status.state = lifecycle.orphan(status.state);
        }
        status.requeueLastUpdate();
        return false;
      }
    }
    this.table.statuses.delete(uid);
    status.closeWorker();
    this.releaseStaticName(status.fullName, uid);
    runCallbacks(status.takeCompletions(), this.deps.log);
    return true;
  }

  observe(operationType: string, startTime: number | undefined): void {
    if (startTime === undefined) return;
    const seconds = Math.max(0, this.deps.clock.now() - startTime) / 1000;
    this.deps.metrics.podWorkerDuration.observe({ operation_type: operationType }, seconds);
  }

  podLog(ref: ObjectRef | string, uid: string): Logger {
    return this.deps.log.with({ pod: ref, podUID: uid });
  }

  workLog(uid: string, work: PodWork): Logger {
    const { pod, runningPod } = work.options;
    const ref = pod ? podRef(pod) : runningPod ? runtimePodRef(runningPod) : uid;
    return this.podLog(ref, uid).with({ workType: work.workType });
  }

  /** The worker is done: its loop ends and the full name is free for the next static pod. */
  #finish(uid: string, status: PodSyncStatus): void {
    status.closeWorker();
    status.state = lifecycle.finish(status.state, this.deps.clock.now());
    status.working = false;
    this.releaseStaticName(status.fullName, uid);
    this.idle.check();
  }

  /** Schedules the next sync, then runs a pending update at once or marks the worker idle. */
  #completeWork(uid: string, phaseTransition: boolean, error: unknown): void {
    const delay = requeueDelay({
      phaseTransition,
      error,
      now: this.deps.clock.now(),
      resyncIntervalMs: this.deps.resyncIntervalMs,
      backOffPeriodMs: this.backOffPeriodMs,
      random: this.deps.random,
    });
    this.deps.workQueue.enqueue(uid, delay);
    const status = this.table.statuses.get(uid);
    if (status === undefined) return;
    if (status.pendingUpdate !== undefined) status.ring();
    else status.working = false;
    this.idle.check();
  }
}

export function runCallbacks(callbacks: (() => void)[], log: Logger): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch (err) {
      log.error("A pod kill completion callback failed; continuing", { err });
    }
  }
}
