/**
 * A PodSyncer fake that records every call and lets a test decide when (and how) each call ends,
 * plus a harness wiring real PodCache, WorkQueue and FakeClock around the pod workers.
 */
import { ConfigSourceAnnotationKey, type Pod, type PodStatus } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { FakeClock, createMemoryLogger, flushMicrotasks } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { PodCache } from "../../../src/pleg/index.ts";
import { createPodWorkers, WorkQueue, type PodSyncer, type SyncPodType } from "../../../src/podworkers/index.ts";
import type { RuntimePodStatus, RuntimePod } from "../../../src/container/index.ts";

export type SyncMethod = "syncPod" | "syncTerminatingPod" | "syncTerminatingRuntimePod" | "syncTerminatedPod";

export interface SyncCall {
  method: SyncMethod;
  uid: string;
  signal: AbortSignal;
  updateType?: SyncPodType;
  pod?: Pod;
  podStatus?: RuntimePodStatus;
  gracePeriodSeconds?: number;
  podStatusFn?: (s: PodStatus) => void;
  /** Ends a held call successfully (syncPod: with isTerminal). */
  release(isTerminal?: boolean): void;
  /** Ends a held call with an error. */
  fail(err: unknown): void;
}

type Outcome = { isTerminal?: boolean; error?: unknown; postSync?: () => void } | "hold";

export class FakeSyncer implements PodSyncer {
  calls: SyncCall[] = [];
  /** What the next calls of a method do (consumed first), then the default for the method. */
  #scripts = new Map<SyncMethod, Outcome[]>();
  #defaults = new Map<SyncMethod, Outcome>();
  #waiters: { n: number; resolve: () => void }[] = [];

  /** Every later call of method waits for release()/fail() (or its signal). */
  holdAll(method: SyncMethod): void {
    this.#defaults.set(method, "hold");
  }

  /** The next call of method behaves as given (queued in order). */
  next(method: SyncMethod, outcome: Outcome): void {
    const list = this.#scripts.get(method) ?? [];
    list.push(outcome);
    this.#scripts.set(method, list);
  }

  /** Later calls of method behave as given. */
  always(method: SyncMethod, outcome: Outcome): void {
    this.#defaults.set(method, outcome);
  }

  /** Resolves once at least n calls were made. */
  waitForCalls(n: number): Promise<void> {
    if (this.calls.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  methods(): string[] {
    return this.calls.map((c) => `${c.method}:${c.uid}${c.updateType ? `:${c.updateType}` : ""}`);
  }

  last(): SyncCall {
    const call = this.calls.at(-1);
    if (!call) throw new Error("expected at least one syncer call, found none");
    return call;
  }

  syncPod(signal: AbortSignal, updateType: SyncPodType, pod: Pod, _mirror: Pod | undefined, podStatus: RuntimePodStatus) {
    return this.#record({ method: "syncPod", uid: pod.metadata.uid!, signal, updateType, pod, podStatus });
  }

  async syncTerminatingPod(
    signal: AbortSignal,
    pod: Pod,
    podStatus: RuntimePodStatus,
    gracePeriodSeconds: number,
    podStatusFn?: (s: PodStatus) => void,
  ): Promise<void> {
    await this.#record({ method: "syncTerminatingPod", uid: pod.metadata.uid!, signal, pod, podStatus, gracePeriodSeconds, podStatusFn });
  }

  async syncTerminatingRuntimePod(signal: AbortSignal, runningPod: RuntimePod): Promise<void> {
    await this.#record({ method: "syncTerminatingRuntimePod", uid: runningPod.uid, signal });
  }

  async syncTerminatedPod(signal: AbortSignal, pod: Pod, podStatus: RuntimePodStatus): Promise<void> {
    await this.#record({ method: "syncTerminatedPod", uid: pod.metadata.uid!, signal, pod, podStatus });
  }

  #record(fields: Omit<SyncCall, "release" | "fail">): Promise<{ isTerminal: boolean; postSync?: () => void }> {
    const outcome = this.#scripts.get(fields.method)?.shift() ?? this.#defaults.get(fields.method) ?? {};
    let release!: (isTerminal?: boolean) => void;
    let fail!: (err: unknown) => void;
    const postSync = outcome === "hold" ? undefined : outcome.postSync;
    const done = new Promise<{ isTerminal: boolean; postSync?: () => void }>((resolve, reject) => {
      release = (isTerminal = false) => resolve({ isTerminal, ...(postSync && { postSync }) });
      fail = reject;
    });
    const call: SyncCall = { ...fields, release, fail };
    this.calls.push(call);
    for (const w of this.#waiters.filter((w) => this.calls.length >= w.n)) {
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve();
    }
    if (outcome === "hold") {
      // A well-behaved syncer gives up when its signal aborts.
      const onAbort = () => fail(fields.signal.reason);
      if (fields.signal.aborted) onAbort();
      else fields.signal.addEventListener("abort", onAbort, { once: true });
    } else if (outcome.error !== undefined) fail(outcome.error);
    else release(outcome.isTerminal ?? false);
    return done;
  }
}

/** A pod the workers are handed: named after its uid, one container "c", static or terminal when told. */
export function workerPod(uid: string, opts: { name?: string; static?: boolean; grace?: number; phase?: "Succeeded" | "Failed" } = {}): Pod {
  return makePod({
    name: opts.name ?? `pod-${uid}`,
    namespace: "default",
    metadata: { uid, annotations: opts.static ? { [ConfigSourceAnnotationKey]: "file" } : {} },
    spec: { containers: [{ name: "c", image: "busybox" }], ...(opts.grace !== undefined ? { terminationGracePeriodSeconds: opts.grace } : {}) },
    status: opts.phase ? { phase: opts.phase } : undefined,
  });
}

export function makeRuntimePod(uid: string): RuntimePod {
  return {
    uid,
    name: `orphan-${uid}`,
    namespace: "default",
    sandboxes: [],
    containers: [{ id: "c1", name: "c", state: "running", createdAt: 1, hash: "", sandboxId: "s1", image: "busybox" }],
  };
}

export function setupWorkers(opts: { random?: () => number; resyncIntervalMs?: number } = {}) {
  const clock = new FakeClock();
  const cache = new PodCache();
  const workQueue = new WorkQueue(clock);
  const syncer = new FakeSyncer();
  const metrics = createMetrics();
  const log = createMemoryLogger();
  const controller = new AbortController();
  const workers = createPodWorkers({
    syncer,
    cache,
    workQueue,
    clock,
    random: opts.random ?? (() => 0),
    log,
    metrics,
    resyncIntervalMs: opts.resyncIntervalMs ?? 60_000,
    signal: controller.signal,
  });
  // The PLEG's relist: everything in the cache is at least as fresh as now.
  cache.updateTime(clock.now());
  /** Moves time on and lets the "PLEG" mark the cache fresh, releasing workers waiting on it. */
  const relist = async (ms = 1_000) => {
    await clock.advance(ms);
    cache.updateTime(clock.now());
  };
  /**
   * Relists (1 s steps, as the generic PLEG does) until cond holds; fails the test after 30
   * relists so a stuck worker shows up as an error, not a hang.
   */
  const relistUntil = async (cond: () => boolean, what = "the condition") => {
    for (let i = 0; i < 30; i++) {
      await flushMicrotasks();
      if (cond()) return;
      await relist();
    }
    throw new Error(`expected ${what} within 30 relists; syncer calls: ${syncer.methods().join(", ")}`);
  };
  /** Relists until no worker is working. */
  const settle = async () => {
    let idle = false;
    const check = () => {
      idle = false;
      void workers.whenIdle().then(() => (idle = true));
    };
    for (let i = 0; i < 30; i++) {
      check();
      await flushMicrotasks();
      if (idle) return;
      await relist();
    }
    throw new Error(`expected the pod workers to become idle within 30 relists; syncer calls: ${syncer.methods().join(", ")}`);
  };
  return { clock, cache, workQueue, syncer, metrics, log, controller, workers, relist, relistUntil, settle };
}
