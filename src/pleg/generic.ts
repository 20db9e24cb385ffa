/**
 * GenericPLEG (pkg/kubelet/pleg/generic.go): relists the runtime every period, diffs each pod
 * against the previous relist, refreshes the pod cache for pods that changed and sends their
 * lifecycle events. It owns its relist loop (start/stop) and serialises relists, so a forced
 * relist (stream failure, tests) never runs alongside the periodic one.
 *
 * On-demand relists (PLEGOnDemandRelist, GA and locked on in 1.37): a pod worker whose sync just
 * started or killed something asks for its pod to be relisted at once, so the change is reported
 * in milliseconds instead of at the next periodic relist, up to a period later. A single-pod
 * relist lists that pod only, diffs and caches it as a relist would, and leaves the global
 * timestamp alone. Requests queue behind the relist in progress, in order with the periodic ones
 * (the kubelet lets a due periodic relist go first and drops the requests it covered; here none
 * can start between a request and its turn, so there is nothing to drop).
 */
import { anySignal, delay, formatGoDuration, type Channel, type Clock, type Logger } from "../lib/index.ts";
import { emptyPodStatus, runtimePodRef, type RuntimePod } from "../container/index.ts";
import type { PodCache } from "./cache.ts";
import { computePodEvents } from "./compute-events.ts";
import type { PlegMetrics, PodLister } from "./deps.ts";
import type { RelistDuration } from "./options.ts";
import { preservedPodIPs } from "./pod-ips.ts";
import { PodRecords } from "./pod-records.ts";
import { setRunningMetricsFromRelist } from "./running-metrics.ts";
import type { PodLifecycleEvent } from "./types.ts";

export interface GenericPlegDeps {
  runtime: PodLister;
  cache: PodCache;
  events: Channel<PodLifecycleEvent>;
  clock: Clock;
  log: Logger;
  metrics: PlegMetrics;
  /** Aborts in-flight runtime calls when the agent shuts down. */
  signal: AbortSignal;
}

export type Health = { ok: boolean; message?: string };

interface CacheUpdate {
  updated: boolean;
  failed: boolean;
}

export class GenericPleg {
  readonly #deps: GenericPlegDeps;
  #duration: RelistDuration;
  #records = new PodRecords();
  /** Pods whose status could not be read; retried at the next relist even without new events. */
  #podsToReinspect = new Set<string>();
  /** Start of the last relist that listed pods successfully; 0 = never. */
  #relistTime = 0;
  #relistChain: Promise<void> = Promise.resolve();
  /** A requested relist that has not started yet; further requests join it. */
  #requested?: Promise<void>;
  /** Single-pod relists asked for and not yet started, by pod UID: when the latest was asked. */
  #podRequests = new Map<string, number>();
  #loop?: { stop: AbortController; done: Promise<void> };
  /** Wakes the loop's wait so a new period applies at once. */
  #wake?: AbortController;
  #firstRelist = Promise.withResolvers<void>();

  constructor(deps: GenericPlegDeps, duration: RelistDuration) {
    this.#deps = deps;
    this.#duration = { ...duration };
  }

  get duration(): RelistDuration {
    return { ...this.#duration };
  }

  get running(): boolean {
    return this.#loop !== undefined;
  }

  get relistTime(): number {
    return this.#relistTime;
  }

  /** Resolves once a relist has listed the runtime and written every pod it found to the cache. */
  get firstRelist(): Promise<void> {
    return this.#firstRelist.promise;
  }

  /** Relists at once, then every period after the previous relist ended. Idempotent. */
  start(): void {
    if (this.#loop) return;
    const stop = new AbortController();
    this.#loop = { stop, done: this.#run(anySignal(stop.signal, this.#deps.signal)) };
  }

  /** Stops the loop and waits for a relist in progress to finish. */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (!loop) return;
    this.#loop = undefined;
    loop.stop.abort();
    await loop.done;
  }

  /** New period and threshold, effective at once: the next relist is due period after the last. */
  update(duration: RelistDuration): void {
    this.#duration = { ...duration };
    this.#wake?.abort();
  }

  /** Runs one relist after any relist in progress. */
  relist(): Promise<void> {
    const next = this.#relistChain.then(() => this.#relistOnce());
    this.#relistChain = next.catch(() => {});
    return next;
  }

  /**
   * A relist soon, for a caller that needs the cache fresher than now (a pod worker that just
   * changed its pod while events carry earlier times). Requests made before it starts share it.
   */
  requestRelist(): Promise<void> {
    if (this.#requested) return this.#requested;
    const next = this.#relistChain.then(() => {
      this.#requested = undefined;
      return this.#relistOnce();
    });
    this.#requested = next;
    this.#relistChain = next.catch(() => {});
    return next;
  }

  /**
   * Relists one pod soon, after any relist in progress (the kubelet's RequestRelist). Requests
   * for a pod whose relist has not started yet join it: it reads the pod after all of them.
   */
  /** Reads the pod's status into the cache on its relist even without a container event (a PodSync event). */
  requestPodReinspect(uid: string): void {
    this.#podsToReinspect.add(uid);
    this.requestPodRelist(uid);
  }

  requestPodRelist(uid: string): void {
    const pending = this.#podRequests.has(uid);
    this.#podRequests.set(uid, this.#deps.clock.now());
    if (pending) return;
    const next = this.#relistChain.then(() => this.#relistPod(uid));
    this.#relistChain = next.catch(() => {});
  }

  healthy(): Health {
    if (this.#relistTime === 0) return { ok: false, message: "pleg has yet to be successful" };
    const elapsed = this.#deps.clock.now() - this.#relistTime;
    const threshold = this.#duration.thresholdMs;
    if (elapsed > threshold) {
      return {
        ok: false,
        message: `pleg was last seen active ${formatGoDuration(elapsed)} ago; threshold is ${formatGoDuration(threshold)}`,
      };
    }
    return { ok: true };
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    while (!signal.aborted) {
      try {
        await this.relist();
      } catch (err) {
        this.#deps.log.error("relist failed", { err, next: "retrying after the relist period" });
      }
      const lastEnd = clock.now();
      for (;;) {
        if (signal.aborted) return;
        const remaining = lastEnd + this.#duration.periodMs - clock.now();
        if (remaining <= 0) break;
        this.#wake = new AbortController();
        await delay(clock, remaining, anySignal(signal, this.#wake.signal));
      }
    }
  }

  async #relistOnce(): Promise<void> {
    const { clock, metrics, log, runtime, signal } = this.#deps;
    if (signal.aborted) return;
    const timestamp = clock.now();
    if (this.#relistTime !== 0) metrics.plegRelistInterval.observe((timestamp - this.#relistTime) / 1000);
    try {
      let pods: RuntimePod[];
      try {
        pods = await runtime.getPods({ all: true, signal });
      } catch (err) {
        if (signal.aborted) return;
        log.error("relist failed: could not list pods from the runtime", { err, next: "retrying at the next relist" });
        return;
      }
      this.#relistTime = timestamp;
      // Set where the PLEG is active, not when someone asks /healthz (alerts read the gauge).
      metrics.plegLastSeen.set(Math.floor(timestamp / 1000));
      setRunningMetricsFromRelist(metrics, pods);
      this.#records.setCurrent(pods);
      await this.#diffAndUpdate();
      if (signal.aborted) return;
      // After every pod above is in the cache: releases workers waiting on pods that did not change.
      this.#deps.cache.updateTime(timestamp);
      this.#firstRelist.resolve();
    } finally {
      metrics.plegRelistDuration.observe((clock.now() - timestamp) / 1000);
    }
  }

  async #diffAndUpdate(): Promise<void> {
    const needsReinspection = new Set<string>();
    for (const uid of this.#records.uids()) {
      const read = await this.#reconcile(uid);
      if (this.#deps.signal.aborted) return;
      if (!read) needsReinspection.add(uid);
    }
    this.#podsToReinspect = needsReinspection;
  }

  /** relistPod in generic.go: the periodic relist's work for one pod, asked for by its worker. */
  async #relistPod(uid: string): Promise<void> {
    const { clock, metrics, log, runtime, signal, cache } = this.#deps;
    const askedAt = this.#podRequests.get(uid);
    this.#podRequests.delete(uid);
    if (askedAt === undefined || signal.aborted) return;
    // The pod must be read after the request (the worker's last sync) to count as newer, and
    // the clock ticks in whole milliseconds.
    if (clock.now() <= askedAt && !(await delay(clock, askedAt - clock.now() + 1, signal))) return;
    const timestamp = clock.now();
    try {
      let pod: RuntimePod | undefined;
      try {
        pod = await runtime.getPod(uid, { signal });
      } catch (err) {
        if (signal.aborted) return;
        log.error("GenericPLEG: Unable to retrieve pod", { podUID: uid, err, next: "the next relist picks its changes up" });
        return;
      }
      if (pod === undefined) {
        log.error("GenericPLEG: Unable to retrieve pod", { podUID: uid, err: "pod not found", next: "the next relist picks its changes up" });
        return;
      }
      this.#records.setCurrentPod(pod);
      const read = await this.#reconcile(uid);
      if (signal.aborted) return;
      if (read) this.#podsToReinspect.delete(uid);
      else this.#podsToReinspect.add(uid);
      // Not the global timestamp: only this pod is known to be this fresh.
      cache.setObservedTime(uid, timestamp);
    } finally {
      metrics.plegPodRelistDuration.observe((clock.now() - timestamp) / 1000);
    }
  }

  /**
   * Compares the pod's last acknowledged view with its current one; when they differ, or its last
   * read failed, reads its status into the cache and sends its events. False when the status could
   * not be read: the old view is kept, so the same change is found, and its events sent, next time.
   */
  async #reconcile(uid: string): Promise<boolean> {
    const oldPod = this.#records.getOld(uid);
    const pod = this.#records.getCurrent(uid);
    const events = computePodEvents(oldPod, pod);
    if (events.length === 0 && !this.#podsToReinspect.has(uid)) return true;
    const result = await this.#updateCache(uid, pod);
    if (result.failed) return false;
    // The evented PLEG already cached something newer; its events were sent with it.
    if (!result.updated || this.#deps.signal.aborted) return true;
    this.#records.update(uid);
    // A pod read again only because its last read failed still needs a sync with the result.
    if (events.length === 0) events.push({ id: uid, type: "PodSync", data: "" });
    for (const event of events) this.#send(event, pod);
    return true;
  }

  async #updateCache(uid: string, pod: RuntimePod | undefined): Promise<CacheUpdate> {
    const { cache, clock, runtime, log, signal } = this.#deps;
    if (!pod) {
      // Gone from the listing: the pod has no containers or sandboxes left.
      cache.delete(uid);
      return { updated: true, failed: false };
    }
    const timestamp = clock.now();
    try {
      const status = await runtime.getPodStatus(pod.uid, pod.name, pod.namespace, { signal });
      status.ips = preservedPodIPs(cache, uid, status);
      return { updated: cache.set(uid, status, undefined, timestamp), failed: false };
    } catch (err) {
      if (signal.aborted) return { updated: false, failed: true };
      log.error("could not read pod status from the runtime", {
        pod: runtimePodRef(pod),
        err,
        next: "reinspecting at the next relist",
      });
      // The worker syncing this pod sees the error instead of stale status (as the kubelet does).
      const previous = cache.has(uid) ? cache.get(uid).status : emptyPodStatus(uid, pod.name, pod.namespace);
      cache.set(uid, previous, err, timestamp);
      return { updated: false, failed: true };
    }
  }

  #send(event: PodLifecycleEvent, pod: RuntimePod | undefined): void {
    // ContainerChanged is not reliable and nothing consumes it.
    if (event.type === "ContainerChanged") return;
    if (this.#deps.events.trySend(event)) return;
    this.#deps.metrics.plegDiscardEvents.inc();
    this.#deps.log.error("event channel is full, discarding this relist's event", {
      pod: pod ? runtimePodRef(pod) : event.id,
      event: event.type,
      containerID: event.data,
      next: "the pod is synced at its next resync",
    });
  }
}
