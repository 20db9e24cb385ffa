/**
 * The PLEG pair as the agent sees it: one event channel and one pod cache shared by a generic
 * relisting PLEG and, with the EventedPLEG gate on, the CRI event stream. This controller owns
 * the stream loop and the mode (mode.ts): it counts stream failures, forces a relist after each,
 * falls back to 1 s relisting after five in a row, re-probes the stream with backoff and switches
 * back when one stays up. Every switch is logged once at info level with its reason.
 */
import type { CriClient } from "../cri/index.ts";
import { Channel, delay, formatGoDuration, type Clock, type Logger } from "../lib/index.ts";
import type { PodCache } from "./cache.ts";
import { criEventSource, type ContainerEventSource, type PlegMetrics, type PodLister } from "./deps.ts";
import { EventedPleg } from "./evented.ts";
import { GenericPleg, type Health } from "./generic.ts";
import { initialModeState, modeOf, transition, type PlegMode, type PlegModeInput, type PlegModeState } from "./mode.ts";
import { PLEG_CHANNEL_CAPACITY, plegOptions, type PlegOptions } from "./options.ts";
import { PodRefresher } from "./refresh.ts";
import { watchContainerEvents } from "./stream.ts";
import type { PodLifecycleEvent } from "./types.ts";

export interface PlegDeps {
  runtime: PodLister;
  /** The CRI client, or any source of GetContainerEvents streams. */
  cri: CriClient | ContainerEventSource;
  cache: PodCache;
  clock: Clock;
  log: Logger;
  metrics: PlegMetrics;
  eventedEnabled: boolean;
  /** The shared channel; created with capacity 1000 when absent. */
  events?: Channel<PodLifecycleEvent>;
}

/** What /healthz and logs can say about the PLEG beyond ok/not ok. */
export interface PlegStatus {
  mode: PlegMode;
  /** When the current mode began (ms). */
  since: number;
  reason: string;
  /** Consecutive failed streams in evented mode. */
  streamFailures: number;
  /** When the next re-probe of GetContainerEvents is due, after a fallback (ms). */
  nextProbeAt?: number;
  relistPeriodMs: number;
}

export interface Pleg {
  /** Capacity 1000, shared by both PLEGs. */
  events: Channel<PodLifecycleEvent>;
  start(): void;
  stop(): Promise<void>;
  /** Both PLEGs; the message names the one that fails. */
  healthy(): Health;
  mode(): PlegMode;
  status(): PlegStatus;
  /** Forces one relist (after any in progress). */
  relistNow(): Promise<void>;
  /**
   * Asks for a relist soon; requests made before it starts share it. In evented mode a pod worker
   * that just changed its pod can call this so getNewerThan(now) is answered in milliseconds
   * instead of at the next global cache update.
   */
  requestRelist(): Promise<void>;
  /**
   * A pod worker's sync changed its pod: relist that pod at once (PLEGOnDemandRelist) so the change
   * is reported without waiting for the next periodic relist. In evented mode the event stream
   * reports it already, and nothing is done.
   */
  requestPodRelist(uid: string): void;
  /**
   * The pod changed in a way no container event shows (an in-place resize): read its status
   * anew at once and sync it (the kubelet's RequestPodReinspect), in either mode.
   */
  requestPodReinspect(uid: string): void;
}

function isEventSource(cri: CriClient | ContainerEventSource): cri is ContainerEventSource {
  return typeof (cri as ContainerEventSource).getContainerEvents === "function";
}

export function createPleg(deps: PlegDeps, overrides: Partial<PlegOptions> = {}): Pleg {
  return new PlegController(deps, plegOptions(overrides));
}

class PlegController implements Pleg {
  readonly events: Channel<PodLifecycleEvent>;
  readonly #deps: PlegDeps;
  readonly #opts: PlegOptions;
  readonly #source: ContainerEventSource;
  readonly #shutdown = new AbortController();
  readonly #generic: GenericPleg;
  readonly #evented: EventedPleg;
  readonly #refresher: PodRefresher;
  #state: PlegModeState;
  #since: number;
  #reason: string;
  #nextProbeAt?: number;
  #lastStreamError: unknown;
  #globalCache?: { stop: AbortController; done: Promise<void> };
  #eventLoop?: Promise<void>;
  #started = false;

  constructor(deps: PlegDeps, opts: PlegOptions) {
    this.#deps = deps;
    this.#opts = opts;
    this.events = deps.events ?? new Channel<PodLifecycleEvent>(PLEG_CHANNEL_CAPACITY);
    this.#source = isEventSource(deps.cri) ? deps.cri : criEventSource(deps.cri);
    const shared = { cache: deps.cache, events: this.events, clock: deps.clock, log: deps.log, metrics: deps.metrics };
    this.#state = initialModeState(deps.eventedEnabled);
    this.#since = deps.clock.now();
    this.#reason = deps.eventedEnabled ? "EventedPLEG feature gate is on" : "EventedPLEG feature gate is off";
    const duration = deps.eventedEnabled ? opts.eventedRelist : opts.genericRelist;
    this.#generic = new GenericPleg({ ...shared, runtime: deps.runtime, signal: this.#shutdown.signal }, duration);
    this.#evented = new EventedPleg(shared);
    this.#refresher = new PodRefresher({
      runtime: deps.runtime,
      cache: deps.cache,
      clock: deps.clock,
      log: deps.log,
      signal: this.#shutdown.signal,
      relist: () => this.#generic.requestRelist(),
    });
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#reportMode();
    this.#generic.start();
    this.#deps.cache.setWaitHook((uid, minTime) => {
      if (this.#state.kind === "evented") this.#refresher.refresh(uid, minTime);
    });
    if (this.#state.kind === "evented") {
      this.#startGlobalCacheUpdates();
      this.#eventLoop = this.#watchEvents(this.#shutdown.signal);
    }
  }

  async stop(): Promise<void> {
    this.#shutdown.abort();
    this.#deps.cache.setWaitHook(undefined);
    await Promise.all([this.#eventLoop, this.#stopGlobalCacheUpdates(), this.#generic.stop(), this.#refresher.idle()]);
  }

  healthy(): Health {
    const failures: string[] = [];
    const generic = this.#generic.healthy();
    if (!generic.ok) failures.push(`generic: ${generic.message}`);
    if (this.#deps.eventedEnabled) {
      const evented = this.#evented.healthy();
      if (!evented.ok) failures.push(`evented: ${evented.message}`);
    }
    return failures.length === 0 ? { ok: true } : { ok: false, message: failures.join("; ") };
  }

  mode(): PlegMode {
    return modeOf(this.#state);
  }

  status(): PlegStatus {
    return {
      mode: this.mode(),
      since: this.#since,
      reason: this.#reason,
      streamFailures: this.#state.kind === "evented" ? this.#state.failures : 0,
      nextProbeAt: this.#state.kind === "fallen-back" ? this.#nextProbeAt : undefined,
      relistPeriodMs: this.#generic.duration.periodMs,
    };
  }

  relistNow(): Promise<void> {
    return this.#generic.relist();
  }

  requestRelist(): Promise<void> {
    return this.#generic.requestRelist();
  }

  requestPodRelist(uid: string): void {
    if (this.#state.kind !== "evented") this.#generic.requestPodRelist(uid);
  }

  requestPodReinspect(uid: string): void {
    this.#generic.requestPodReinspect(uid);
  }

  /** Streams until shutdown: reconnecting in evented mode, re-probing with backoff after a fallback. */
  async #watchEvents(signal: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    while (!signal.aborted) {
      if (this.#state.kind === "fallen-back") {
        this.#nextProbeAt = clock.now() + this.#state.probeDelayMs;
        if (!(await delay(clock, this.#state.probeDelayMs, signal))) return;
        await this.#apply("probe-due");
      }
      const probing = this.#state.kind === "probing";
      const outcome = await watchContainerEvents({
        source: this.#source,
        clock,
        signal,
        establishAfterMs: probing ? this.#opts.reprobeStableMs : this.#opts.streamEstablishedMs,
        establishOnEvent: !probing,
        onEstablished: () => void this.#apply("stream-established"),
        onEvent: (event) => this.#evented.processEvent(event),
      });
      if (outcome.kind === "stopped") return;
      this.#lastStreamError = outcome.error;
      this.#deps.log.debug("GetContainerEvents stream failed", { err: outcome.error, mode: this.mode() });
      await this.#apply("stream-failed");
    }
  }

  async #apply(input: PlegModeInput): Promise<void> {
    const from = this.#state;
    const { state, actions } = transition(from, input, this.#opts);
    this.#state = state;
    const { metrics } = this.#deps;
    for (const action of actions) {
      switch (action) {
        case "count-success":
          metrics.eventedPlegConnectionSuccess.inc();
          break;
        case "count-error":
          metrics.eventedPlegConnectionErrors.inc();
          break;
        case "force-relist":
          await this.#generic.relist();
          break;
        case "fall-back":
          this.#generic.update(this.#opts.genericRelist);
          await this.#stopGlobalCacheUpdates();
          this.#switched(
            `GetContainerEvents failed ${this.#opts.maxStreamRetries} times in a row (last error: ${errorText(this.#lastStreamError)})`,
            { nextProbeIn: formatGoDuration(this.#opts.reprobeInitialMs) },
          );
          break;
        case "switch-back":
          this.#generic.update(this.#opts.eventedRelist);
          this.#startGlobalCacheUpdates();
          this.#switched(`a GetContainerEvents stream stayed up for ${formatGoDuration(this.#opts.reprobeStableMs)}`, {});
          break;
      }
    }
  }

  #switched(reason: string, fields: Record<string, unknown>): void {
    this.#since = this.#deps.clock.now();
    this.#reason = reason;
    const relistPeriod = formatGoDuration(this.#generic.duration.periodMs);
    this.#deps.log.info(`PLEG switched to ${this.mode()} mode`, { mode: this.mode(), reason, relistPeriod, ...fields });
    this.#reportMode();
  }

  #reportMode(): void {
    const mode = this.mode();
    this.#deps.metrics.plegMode.set({ mode: "evented" }, mode === "evented" ? 1 : 0);
    this.#deps.metrics.plegMode.set({ mode: "generic" }, mode === "generic" ? 1 : 0);
  }

  #startGlobalCacheUpdates(): void {
    if (this.#globalCache || this.#shutdown.signal.aborted) return;
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, this.#shutdown.signal]);
    const period = this.#opts.globalCacheUpdatePeriodMs;
    this.#globalCache = { stop, done: this.#evented.runGlobalCacheUpdates(period, signal, this.#generic.firstRelist) };
  }

  async #stopGlobalCacheUpdates(): Promise<void> {
    const running = this.#globalCache;
    this.#globalCache = undefined;
    running?.stop.abort();
    await running?.done;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
