/**
 * Graceful node shutdown (the kubelet's nodeshutdown manager on systemd-logind). With
 * shutdownGracePeriod set and logind on the system bus, bunlet makes sure logind lets it delay a
 * shutdown that long (InhibitDelayMaxSec), holds a "delay" inhibitor lock on shutdown, and when
 * logind announces one (PrepareForShutdown true) stops the pods: ordinary ones within
 * shutdownGracePeriod − shutdownGracePeriodCriticalPods, then critical ones within
 * shutdownGracePeriodCriticalPods, each Failed with reason Terminated; then it releases the lock
 * so the shutdown proceeds. A cancelled shutdown takes the lock again. Without logind it logs one
 * line saying so and does nothing else.
 */
import { kObj, type Pod, type PodStatus } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { InhibitorLock } from "./logind.ts";
import { podGracePeriod, shutdownGroups, shutdownStatus } from "./policy.ts";
import { loadShutdownState, setShutdownMetrics, storeShutdownState, type ShutdownStateMetrics, type ShutdownTimes } from "./state.ts";

export interface Logind {
  unavailableReason(): string | undefined;
  readInhibitDelayMaxMs(): number | undefined;
  setInhibitDelayMax(seconds: number): void;
  acquireInhibitorLock(): InhibitorLock;
  monitorShutdown(onPrepare: (active: boolean) => void, signal: AbortSignal): Promise<void>;
}

export interface ShutdownDeps {
  logind: Logind;
  activePods(): Pod[];
  /** Stops the pod (not an eviction) and resolves once it has no running containers. */
  killPod(pod: Pod, gracePeriodSeconds: number, statusFn: (status: PodStatus) => void): Promise<void>;
  clock: Clock;
  log: Logger;
  /** Where the last shutdown's times are kept, and the gauges that show them. */
  state?: { path: string; metrics: ShutdownStateMetrics };
}

export interface ShutdownOptions {
  gracePeriodMs: number;
  criticalGracePeriodMs: number;
}

export class ShutdownManager {
  readonly #deps: ShutdownDeps;
  readonly #opts: ShutdownOptions;
  #lock: InhibitorLock | undefined;
  #shuttingDown = false;
  #work: Promise<void> = Promise.resolve();

  constructor(deps: ShutdownDeps, opts: ShutdownOptions) {
    this.#deps = deps;
    this.#opts = opts;
  }

  /** "node is shutting down" while the pods are being stopped (for node readiness). */
  shutdownStatus(): string | undefined {
    return this.#shuttingDown ? "node is shutting down" : undefined;
  }

  async run(signal: AbortSignal): Promise<void> {
    const { logind, log } = this.#deps;
    const { gracePeriodMs, criticalGracePeriodMs } = this.#opts;
    if (gracePeriodMs <= 0) return;
    const why = logind.unavailableReason();
    if (why !== undefined) {
      log.info("Graceful node shutdown is not available: pods are not stopped before this node shuts down", { reason: why, shutdownGracePeriod: `${gracePeriodMs / 1000}s` });
      return;
    }
    const current = logind.readInhibitDelayMaxMs();
    if (current === undefined || current < gracePeriodMs) {
      try {
        logind.setInhibitDelayMax(Math.ceil(gracePeriodMs / 1000));
      } catch (err) {
        log.error("Node shutdown manager was unable to update logind InhibitDelayMaxSec; shutdowns may cut pods short", { err });
      }
      const updated = logind.readInhibitDelayMaxMs();
      if (updated !== undefined && updated < gracePeriodMs) {
        log.error("Node shutdown manager was unable to update logind InhibitDelayMaxSec", { requested: `${gracePeriodMs / 1000}s`, current: `${updated / 1000}s` });
      }
    }
    this.#lock = logind.acquireInhibitorLock();
    this.#showLastShutdown();
    log.info("Creating node shutdown manager", { shutdownGracePeriodRequested: `${gracePeriodMs / 1000}s`, shutdownGracePeriodCriticalPods: `${criticalGracePeriodMs / 1000}s` });
    try {
      await logind.monitorShutdown((active) => {
        this.#work = this.#work.then(() => (active ? this.#onShutdown() : this.#onCancel()));
      }, signal);
      await this.#work;
    } finally {
      this.#lock?.release();
      this.#lock = undefined;
    }
  }

  /** The times of the shutdown before this start (the kubelet's setMetrics). */
  #showLastShutdown(): void {
    const state = this.#deps.state;
    if (!state) return;
    try {
      const times = loadShutdownState(state.path);
      if (times.startMs !== undefined) state.metrics.gracefulShutdownStartTime.set(Math.floor(times.startMs / 1000));
      if (times.endMs !== undefined) state.metrics.gracefulShutdownEndTime.set(Math.floor(times.endMs / 1000));
    } catch (err) {
      this.#deps.log.error("Failed to load graceful shutdown state", { path: state.path, err });
    }
  }

  /** Stores and shows a time of this shutdown; a failed write is logged, the shutdown goes on. */
  #recordShutdown(times: ShutdownTimes): void {
    const state = this.#deps.state;
    if (!state) return;
    try {
      storeShutdownState(state.path, times);
    } catch (err) {
      this.#deps.log.error("Failed to store graceful shutdown state", { path: state.path, err });
    }
    setShutdownMetrics(state.metrics, times);
  }

  async #onShutdown(): Promise<void> {
    const { log, clock } = this.#deps;
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    const startMs = clock.now();
    this.#recordShutdown({ startMs });
    log.info("Shutdown manager detected new shutdown event, isNodeShuttingDownNow", { event: "true" });
    const groups = shutdownGroups(this.#deps.activePods(), this.#opts.gracePeriodMs, this.#opts.criticalGracePeriodMs);
    for (const group of groups) {
      log.info("Shutdown manager killing pod group", { gracePeriodSeconds: group.gracePeriodSeconds, pods: group.pods.map((p) => kObj(p.metadata)) });
      await Promise.all(
        group.pods.map(async (pod) => {
          const grace = podGracePeriod(pod, group.gracePeriodSeconds);
          const ref = kObj(pod.metadata);
          log.info("Shutdown manager killing pod with gracePeriod", { pod: ref, gracePeriod: grace });
          try {
            await this.#deps.killPod(pod, grace, (status) => shutdownStatus(status, new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z")));
            log.info("Shutdown manager finished killing pod", { pod: ref });
          } catch (err) {
            log.error("Shutdown manager failed killing pod", { err, pod: ref });
          }
        }),
      );
    }
    this.#recordShutdown({ startMs, endMs: clock.now() });
    log.info("Shutdown manager completed processing shutdown event, node will shutdown shortly");
    this.#lock?.release();
    this.#lock = undefined;
  }

  async #onCancel(): Promise<void> {
    if (!this.#shuttingDown) return;
    this.#deps.log.info("Shutdown manager detected shutdown cancellation; taking the inhibitor lock again");
    this.#shuttingDown = false;
    this.#lock ??= this.#deps.logind.acquireInhibitorLock();
  }
}
