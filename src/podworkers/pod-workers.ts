/**
 * The pod workers (pkg/kubelet/pod_workers.go): one serialized async worker per pod UID that
 * drives the pod through syncPod → syncTerminatingPod → syncTerminatedPod. Callers only ever
 * hand over the newest desired state (updatePod); a worker acts on the latest pending update,
 * never on a backlog, and a termination request can be shortened but never undone.
 *
 * Ownership: this object owns the worker table (every PodSyncStatus) and every worker loop, and
 * is composed of the parts that read and change it: the queries, the lifecycle steps and the idle
 * waiters. Everything runs on one thread, so each state change is one synchronous step (the
 * kubelet's podLock sections); the only awaits are inside runWork, where updatePod may replace
 * the pending update or cancel the sync in flight through its AbortSignal.
 */
import { isStaticPod, podFullName, podUID, podRef, type ObjectRef, type Pod } from "../api/index.ts";
import { anySignal, jitter, Mailbox } from "../lib/index.ts";
import { runtimePodRef, type RuntimePodStatus, type RuntimePod } from "../container/index.ts";
import * as lifecycle from "./worker-state.ts";
import { IdleWaiters, LifecycleSteps, runCallbacks, type PodWorkersDeps } from "./worker-steps.ts";
import { podQueries, type PodQueries } from "./queries.ts";
import { workerBackOffPeriodJitterFactor } from "./requeue.ts";
import { runWork, type PodWork } from "./run-work.ts";
import { calculateEffectiveGracePeriod, PodSyncStatus, type WorkerHandle } from "./sync-status.ts";
import { WorkerTable } from "./table.ts";
import type { KnownPodWorker, PodWorkers, UpdatePodOptions } from "./types.ts";

export type { PodWorkersDeps } from "./worker-steps.ts";

export function createPodWorkers(deps: PodWorkersDeps): PodWorkers {
  const workers = new PodWorkersImpl(deps);
  return {
    ...workers.queries,
    updatePod: (options) => workers.updatePod(options),
    syncKnownPods: (desired) => workers.syncKnownPods(desired),
    observeRuntimePods: (pods) => workers.observeRuntimePods(pods),
    whenIdle: () => workers.idle.whenIdle(),
    stop: () => workers.stop(),
  };
}

type StartDecision = { kind: "run"; work: PodWork; signal: AbortSignal } | { kind: "wait" } | { kind: "exit" };

interface UpdateIdentity {
  uid: string;
  fullName: string;
  ref: ObjectRef;
  isRuntimePod: boolean;
}

class PodWorkersImpl {
  readonly queries: PodQueries;
  readonly idle: IdleWaiters;
  /** Aborted when the agent stops: loops end, syncs in flight see their signal abort. */
  readonly #root: AbortSignal;
  readonly #deps: PodWorkersDeps;
  readonly #table = new WorkerTable();
  readonly #steps: LifecycleSteps;
  readonly #stopper = new AbortController();
  readonly #loops = new Set<Promise<void>>();

  constructor(deps: PodWorkersDeps) {
    this.#deps = deps;
    this.#root = anySignal(deps.signal, this.#stopper.signal);
    this.queries = podQueries(this.#table);
    this.idle = new IdleWaiters(() => this.#root.aborted || this.#table.idle());
    this.#steps = new LifecycleSteps(this.#table, deps, this.idle);
    this.#root.addEventListener("abort", () => this.idle.check(), { once: true });
  }

  updatePod(input: UpdatePodOptions): void {
    if (this.#root.aborted) return;
    const options: UpdatePodOptions = { ...input };
    const identity = this.#identify(options);
    if (identity === undefined) return;
    const { uid, isRuntimePod } = identity;
    const log = this.#steps.podLog(identity.ref, uid);
    const now = this.#deps.clock.now();

    let status = this.#table.statuses.get(uid);
    const firstTime = status === undefined;
    if (status === undefined) {
      status = this.#newStatus(uid, identity.fullName, options.pod, now);
      this.#table.statuses.set(uid, status);
    }

    // A runtime-only kill uses the real spec when one is known; the pod must be driven to
    // completion through a terminating sync either way.
    let pod = options.pod;
    if (isRuntimePod) {
      const known = status.pendingUpdate?.pod ?? status.activeUpdate?.pod;
      if (known !== undefined) {
        options.pod = pod = known;
        options.runningPod = undefined;
      } else {
        pod = runtimePodToApiPod(options.runningPod!);
      }
    }
    if (pod === undefined) return;

    if (!firstTime && status.isTerminationRequested() && options.updateType === "create") {
      status.state = lifecycle.requestRestart(status.state);
      log.debug("Pod is terminating but has been requested to restart with same UID, will be reconciled later");
      return;
    }
    if (status.isFinished()) {
      log.debug("Pod is finished processing, no further updates", { updateType: options.updateType });
      return;
    }

    const cause = status.isTerminationRequested() ? undefined : lifecycle.terminationCause(pod, options, isRuntimePod);
    const becameTerminating = cause !== undefined;
    if (cause !== undefined) {
      status.state = lifecycle.requestTermination(status.state, cause, now);
      log.debug("Pod begins termination", { updateType: options.updateType });
    }
    if (isRuntimePod) status.state = lifecycle.observeRuntime(status.state);

    let gracePeriodShortened = false;
    const kill = options.killPodOptions;
    if (status.isTerminated()) {
      if (isRuntimePod) {
        log.debug("Pod is terminated, ignoring runtime-only kill until the worker finished");
        return;
      }
      if (kill?.onCompleted) runCallbacks([kill.onCompleted], log);
      options.killPodOptions = undefined;
    } else if (status.isTerminationRequested()) {
      if (kill?.onCompleted) status.notifyPostTerminating.push(kill.onCompleted);
      if (kill?.podStatusFn) status.statusPostTerminating.push(kill.podStatusFn);
      const { gracePeriod, shortened } = calculateEffectiveGracePeriod(status.gracePeriod, pod, kill);
      status.gracePeriod = gracePeriod;
      gracePeriodShortened = shortened;
      // Every terminating update carries the effective grace period, so the sync need not recompute it.
      options.killPodOptions = { evict: kill?.evict, gracePeriodSecondsOverride: gracePeriod };
    } else if (kill !== undefined) {
      // Kill options mean nothing to a pod that is not terminating: report them done at once.
      if (kill.onCompleted) runCallbacks([kill.onCompleted], log);
      options.killPodOptions = undefined;
    }

    if (status.worker === undefined) {
      if (isStaticPod(pod)) this.#table.gate.enqueue(status.fullName, uid);
      this.#startWorker(uid, status);
    }

    // Keep the oldest start time of coalesced updates so the duration metric shows the full wait.
    const pendingStart = status.pendingUpdate?.startTime;
    if (pendingStart !== undefined && options.startTime !== undefined && pendingStart < options.startTime) {
      options.startTime = pendingStart;
    }
    status.pendingUpdate = options;
    status.working = true;
    status.ring();

    if ((becameTerminating || gracePeriodShortened) && status.sync !== undefined) {
      log.debug("Cancelling current pod sync", { workType: status.workType() });
      status.sync.abort(new DOMException("pod sync cancelled: the pod is terminating", "AbortError"));
    }
  }

  syncKnownPods(desired: Pod[]): Map<string, KnownPodWorker> {
    const known = new Set(desired.map(podUID));
    this.#table.podsSynced = true;
    const workers = new Map<string, KnownPodWorker>();
    for (const [uid, status] of [...this.#table.statuses]) {
      const orphan = !known.has(uid);
      if ((lifecycle.restartRequested(status.state) || orphan) && this.#steps.removeTerminatedWorker(uid, status, orphan)) continue;
      const config = status.activeUpdate ?? status.pendingUpdate;
      workers.set(uid, {
        state: status.workType(),
        orphan,
        hasConfig: config?.pod !== undefined,
        static: config?.pod !== undefined && isStaticPod(config.pod),
      });
    }
    this.idle.check();
    return workers;
  }

  observeRuntimePods(pods: readonly RuntimePod[]): void {
    const freed = this.#table.gate.observeRuntime(pods.map((p) => ({ fullName: runtimePodFullName(p), uid: p.uid })));
    for (const fullName of freed) this.#steps.wakeStaticWaiters(fullName);
  }

  async stop(): Promise<void> {
    this.#stopper.abort(new DOMException("pod workers stopped", "AbortError"));
    await Promise.allSettled([...this.#loops]);
  }

  #identify(options: UpdatePodOptions): UpdateIdentity | undefined {
    const { pod, runningPod } = options;
    if (pod !== undefined) {
      if (runningPod !== undefined) options.runningPod = undefined;
      const ref = podRef(pod);
      return { uid: podUID(pod), fullName: podFullName(pod), ref, isRuntimePod: false };
    }
    if (runningPod === undefined) {
      this.#deps.log.error("Pod update ignored: it carries neither a pod nor a runtime pod", { updateType: options.updateType });
      return undefined;
    }
    const ref = runtimePodRef(runningPod);
    if (options.updateType !== "kill") {
      this.#steps.podLog(ref, runningPod.uid).info("Pod update ignored: runtime pods can only be killed", {
        updateType: options.updateType,
      });
      return undefined;
    }
    return { uid: runningPod.uid, fullName: runtimePodFullName(runningPod), ref, isRuntimePod: true };
  }

  #newStatus(uid: string, fullName: string, pod: Pod | undefined, now: number): PodSyncStatus {
    const phase = pod?.status?.phase;
    const cached = this.#deps.cache.get?.(uid);
    if ((phase === "Failed" || phase === "Succeeded") && cached !== undefined && isPodStatusCacheTerminal(cached.status)) {
      return new PodSyncStatus(fullName, now, lifecycle.alreadyTerminated(now));
    }
    return new PodSyncStatus(fullName, now);
  }

  #startWorker(uid: string, status: PodSyncStatus): void {
    const handle: WorkerHandle = { doorbell: new Mailbox<true>(), lifetime: new AbortController() };
    status.worker = handle;
    const loop = this.#workerLoop(uid, handle)
      .catch((err) => {
        this.#deps.log.error("Pod worker failed unexpectedly and stopped; the pod is no longer synced", { podUID: uid, err });
        const current = this.#table.statuses.get(uid);
        if (current?.worker === handle) current.working = false;
      })
      .finally(() => {
        this.#loops.delete(loop);
        this.idle.check();
      });
    this.#loops.add(loop);
  }

  async #workerLoop(uid: string, handle: WorkerHandle): Promise<void> {
    const lifetime = anySignal(this.#root, handle.lifetime.signal);
    let lastSyncTime = 0;
    for (;;) {
      if ((await handle.doorbell.take(lifetime)) === undefined) return;
      const decision = this.#startPodSync(uid, handle);
      if (decision.kind === "exit") return;
      if (decision.kind === "wait") continue;
      const { work } = decision;
      const deps = {
        syncer: this.#deps.syncer,
        cache: this.#deps.cache,
        log: this.#steps.workLog(uid, work),
        acknowledgeTerminating: () => this.#table.statuses.get(uid)?.acknowledgeTerminating(),
      };
      const result = await runWork(deps, uid, work, decision.signal, lastSyncTime);
      if (result.synced) lastSyncTime = this.#deps.clock.now();
      result.postSync?.();
      if (this.#root.aborted) return;
      if (this.#steps.completeStep(uid, work, result, decision.signal)) return;
    }
  }

  /** Takes the pending update and decides whether (and how) the worker may act on it now. */
  #startPodSync(uid: string, handle: WorkerHandle): StartDecision {
    const status = this.#table.statuses.get(uid);
    if (status === undefined || status.worker !== handle) return { kind: "exit" };
    const pending = status.pendingUpdate;
    if (pending === undefined) {
      status.working = false;
      this.idle.check();
      return { kind: "wait" };
    }
    const work: PodWork = { workType: status.workType(), options: pending };
    status.pendingUpdate = undefined;
    handle.doorbell.tryTake();
    if (status.sync === undefined || status.sync.signal.aborted) status.sync = new AbortController();
    const signal = anySignal(this.#root, status.sync.signal);

    if (status.isStarted() || (pending.runningPod !== undefined && work.workType === "TerminatingPod")) {
      status.mergeLastUpdate(pending);
      return { kind: "run", work, signal };
    }
    const pod = pending.pod;
    if (pod === undefined) {
      status.mergeLastUpdate(pending);
      this.#deps.log.error("Pod worker got a runtime-only update for a pod that never started; it stops", { podUID: uid });
      return { kind: "exit" };
    }
    if (isStaticPod(pod)) {
      if (status.isTerminationRequested()) {
        this.#steps.finishUnstarted(uid, status, pending);
        return { kind: "exit" };
      }
      if (!this.#table.gate.tryStart(status.fullName, uid, (waiter) => this.#canStillStart(waiter))) {
        // Another pod of this full name runs or is ahead in line: look again after a backoff.
        this.#deps.workQueue.enqueue(uid, jitter(this.#steps.backOffPeriodMs, workerBackOffPeriodJitterFactor, this.#deps.random));
        status.pendingUpdate = pending;
        status.working = false;
        this.idle.check();
        return { kind: "wait" };
      }
    }
    status.startedAt = this.#deps.clock.now();
    status.mergeLastUpdate(pending);
    // Once per pod a worker starts, as the kubelet's allowPodStart path records it.
    this.#deps.metrics.containersPerPodCount.observe(pod.spec.containers.length);
    return { kind: "run", work, signal };
  }

  #canStillStart(uid: string): boolean {
    const status = this.#table.statuses.get(uid);
    return status !== undefined && !status.isTerminationRequested();
  }
}

/** kubecontainer.BuildPodFullName from the runtime's labels, as podFullName builds it from a pod. */
function runtimePodFullName(pod: RuntimePod): string {
  return `${pod.name}_${pod.namespace}`;
}

/** No running container and no ready sandbox in the cached runtime status. */
function isPodStatusCacheTerminal(status: RuntimePodStatus): boolean {
  const running = status.containerStatuses.some((c) => c.state === "running");
  return !running && !status.sandboxStatuses.some((s) => s.state === "ready");
}

/** The placeholder pod a runtime-only kill is judged by (kubecontainer.Pod.ToAPIPod). */
function runtimePodToApiPod(runningPod: RuntimePod): Pod {
  return {
    metadata: { uid: runningPod.uid, name: runningPod.name, namespace: runningPod.namespace },
    spec: { containers: runningPod.containers.map((c) => ({ name: c.name, image: c.image })) },
  };
}
