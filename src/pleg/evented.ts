/**
 * EventedPLEG (pkg/kubelet/pleg/evented.go), the part that turns one CRI container event into a
 * pod cache update and lifecycle events. The stream itself, its retries and the fallback belong
 * to the PLEG controller (pleg.ts), which feeds events here.
 */
import { ContainerEventType, type ContainerEventResponse } from "../cri/index.ts";
import { runEvery, type Channel, type Clock, type Logger } from "../lib/index.ts";
import { nanosToMs, runtimePodRef, type RuntimePodStatus } from "../container/index.ts";
import type { PodCache } from "./cache.ts";
import type { PlegMetrics } from "./deps.ts";
import { lifecycleEventsFor, podStatusFromEvent } from "./event-status.ts";
import type { Health } from "./generic.ts";
import { preservedPodIPs } from "./pod-ips.ts";
import { applyRunningMetricsDelta } from "./running-metrics.ts";
import type { PodLifecycleEvent } from "./types.ts";

export interface EventedPlegDeps {
  cache: PodCache;
  events: Channel<PodLifecycleEvent>;
  clock: Clock;
  log: Logger;
  metrics: PlegMetrics;
}

export class EventedPleg {
  readonly #deps: EventedPlegDeps;

  constructor(deps: EventedPlegDeps) {
    this.#deps = deps;
  }

  /**
   * Caches the status the event carries, stamped with the event's own time, so a relist that read
   * the runtime later wins and one that read it earlier loses. Events go out only when the cache
   * took the update (a DELETED event always reports, as a relist would).
   */
  processEvent(event: ContainerEventResponse): void {
    const { cache, clock, log, metrics } = this.#deps;
    const status = podStatusFromEvent(event);
    if (!status) {
      // A race with the sandbox's removal; that removal has its own event, and relists reconcile.
      log.warn("container event without pod sandbox metadata; ignoring it", {
        containerID: event.containerId,
        event: ContainerEventType[event.containerEventType],
        next: "the next relist reconciles the pod",
      });
      return;
    }
    const uid = status.uid;
    metrics.plegLastSeen.set(Math.floor(clock.now() / 1000));
    const eventTime = nanosToMs(event.createdAt);
    metrics.eventedPlegConnectionLatency.observe(Math.max(0, clock.now() - eventTime) / 1000);
    status.ips = preservedPodIPs(cache, uid, status);
    const before = cache.has(uid) ? cache.get(uid) : undefined;

    let send: boolean;
    if (event.containerEventType === ContainerEventType.CONTAINER_DELETED_EVENT) {
      send = true;
      if (status.sandboxStatuses.some((s) => s.id === event.containerId)) {
        // The sandbox is gone, so is the pod's runtime state, unless the cache already holds
        // something newer (a later sandbox of the same pod), which the kubelet would drop.
        if (!before || before.modified <= eventTime) {
          cache.delete(uid);
          applyRunningMetricsDelta(metrics, before?.status, undefined);
        }
      } else {
        this.#set(uid, status, eventTime, before?.status);
      }
    } else {
      send = this.#set(uid, status, eventTime, before?.status);
    }
    if (!send) {
      log.debug("container event older than the cached pod status; ignoring it", { pod: runtimePodRef(status), containerID: event.containerId }, 5);
      return;
    }
    for (const e of lifecycleEventsFor(uid, event)) this.#send(e, status);
  }

  /** Unhealthy only when the shared event channel is full (nobody is consuming). */
  healthy(): Health {
    const { events } = this.#deps;
    if (events.length >= events.capacity) {
      return { ok: false, message: `EventedPLEG: pleg event channel capacity is full with ${events.length} events` };
    }
    return { ok: true };
  }

  /**
   * Moves the cache's global timestamp every period until the signal aborts: a stream can miss
   * an event without noticing, and a worker waiting on getNewerThan must not wait forever. Each
   * tick also marks the PLEG as seen active: in evented mode a quiet node has no events and
   * relists only every 300 s, yet its PLEG is working.
   * It starts only when `cacheFilled` resolves (the first successful relist): before that the
   * cache is empty, and a global timestamp would let a pod worker take that empty status as
   * current and create a second sandbox for a pod the runtime already runs.
   */
  async runGlobalCacheUpdates(periodMs: number, signal: AbortSignal, cacheFilled: Promise<void>): Promise<void> {
    const { cache, clock, log, metrics } = this.#deps;
    if (!(await resolvedBefore(cacheFilled, signal))) return;
    await runEvery(
      clock,
      () => periodMs,
      signal,
      () => {
        cache.updateTime(clock.now());
        metrics.plegLastSeen.set(Math.floor(clock.now() / 1000));
      },
      (err) => log.error("could not update the pod cache timestamp", { err, next: "retrying next period" }),
    );
  }

  #set(uid: string, status: RuntimePodStatus, eventTime: number, before: RuntimePodStatus | undefined): boolean {
    const updated = this.#deps.cache.set(uid, status, undefined, eventTime);
    if (updated) applyRunningMetricsDelta(this.#deps.metrics, before, status);
    return updated;
  }

  #send(event: PodLifecycleEvent, status: RuntimePodStatus): void {
    if (this.#deps.events.trySend(event)) return;
    this.#deps.metrics.plegDiscardEvents.inc();
    this.#deps.log.error("event channel is full, discarding a container event", {
      pod: runtimePodRef(status),
      event: event.type,
      containerID: event.data,
      next: "the pod is synced at its next resync",
    });
  }
}

/** True when `p` resolves, false as soon as the signal aborts (whichever comes first). */
function resolvedBefore(p: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(!signal.aborted);
    });
  });
}
