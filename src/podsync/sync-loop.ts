/**
 * The sync loop (kubelet.go syncLoop / syncLoopIteration): one event at a time from the config
 * updates, the PLEG, the 1 s sync tick and the 2 s housekeeping tick, routed to the handlers. It
 * only dispatches: the pod workers do the work, so an iteration never waits on a pod.
 *
 * Go's select becomes pumps: one task per source sends into an unbuffered channel the loop
 * receives from, so each source waits its turn (a slow loop blocks the config source and lets the
 * PLEG's own buffer fill, as in the kubelet). A tick pump sends one tick and waits for it to be
 * taken before timing the next, so ticks coalesce while the loop is busy, like a Go ticker.
 */
import { podRef, podUID, type Pod } from "../api/index.ts";
import { Channel, ChannelClosedError, delay, type Clock, type Logger } from "../lib/index.ts";
import type { PodLifecycleEvent } from "../pleg/index.ts";
import type { PodUpdate } from "../podconfig/index.ts";
import type { ProbeType, ProbeUpdate } from "../prober/index.ts";
import type { PodHandlers } from "./handlers.ts";
import type { PodManager } from "./pod-manager.ts";
import type { SourcesReady } from "./sources-ready.ts";
import type { PlegEventSource, WorkQueue } from "./types.ts";

const SYNC_PERIOD_MS = 1000;
const HOUSEKEEPING_PERIOD_MS = 2000;
/** Backoff while the runtime is not ready: 100 ms doubling to 5 s, back to 100 ms on success. */
const RUNTIME_BACKOFF_BASE_MS = 100;
const RUNTIME_BACKOFF_MAX_MS = 5000;

type LoopEvent =
  | { kind: "config"; update: PodUpdate }
  | { kind: "pleg"; event: PodLifecycleEvent }
  | { kind: "probe"; probe: ProbeType; update: ProbeUpdate }
  | { kind: "sync" }
  | { kind: "housekeeping" };

/** A prober's update channel (a Channel<ProbeUpdate> fits). */
interface ProbeUpdateSource {
  iterate(signal: AbortSignal): AsyncIterable<ProbeUpdate>;
}

/** When the loop last started or finished an iteration (syncLoopMonitor), for /healthz. */
export class SyncLoopMonitor {
  lastEntry = 0;
}

export interface SyncLoopDeps {
  updates: AsyncIterable<PodUpdate>;
  pleg: PlegEventSource;
  /** The prober's result changes (liveness, readiness, startup); absent when nothing probes. */
  probeUpdates?: Record<ProbeType, ProbeUpdateSource>;
  sourcesReady: SourcesReady;
  handlers: PodHandlers;
  podManager: Pick<PodManager, "get" | "pods">;
  /** Modules that may want a pod synced at a sync tick although no work is due (the active deadline). */
  podSyncLoopHandlers?: readonly { shouldSync(pod: Pod): boolean }[];
  workQueue: WorkQueue;
  housekeeping: { run(signal: AbortSignal): Promise<void> };
  containerDeletor: { deleteContainersInPod(uid: string, removeAll: boolean): boolean };
  shouldPodContentBeRemoved(uid: string): boolean;
  /** Why the runtime cannot be used now (the loop then skips iterations), or undefined. */
  runtimeError(): string | undefined;
  monitor: SyncLoopMonitor;
  /** Called for each config update and PLEG event: the work that makes garbage (the idle memory release waits for it to stop). */
  onActivity?: () => void;
  clock: Clock;
  log: Logger;
  syncPeriodMs?: number;
  housekeepingPeriodMs?: number;
}

/** Runs until the signal aborts. */
export async function runSyncLoop(deps: SyncLoopDeps, outerSignal: AbortSignal): Promise<void> {
  const { clock, log, monitor } = deps;
  // The loop's own lifetime, so that however it ends it stops its pumps.
  const lifetime = new AbortController();
  const signal = AbortSignal.any([outerSignal, lifetime.signal]);
  const inbox = new Channel<LoopEvent>(0);
  const send = async (event: LoopEvent): Promise<boolean> => {
    try {
      await inbox.send(event, { signal });
      return true;
    } catch (err) {
      if (signal.aborted || err instanceof ChannelClosedError) return false;
      throw err;
    }
  };
  const pumps = [
    pumpConfig(deps.updates, send, signal, log),
    pumpPleg(deps.pleg, send, signal),
    ...Object.entries(deps.probeUpdates ?? {}).map(([probe, updates]) => pumpProbe(probe as ProbeType, updates, send, signal)),
    pumpTicks(clock, deps.syncPeriodMs ?? SYNC_PERIOD_MS, { kind: "sync" }, send, signal),
    pumpTicks(clock, deps.housekeepingPeriodMs ?? HOUSEKEEPING_PERIOD_MS, { kind: "housekeeping" }, send, signal),
  ].map((p) =>
    p.catch((err) => {
      log.error("A sync loop source failed; it delivers nothing more", { err });
    }),
  );

  let backoff = RUNTIME_BACKOFF_BASE_MS;
  let skipping = false;
  try {
    while (!signal.aborted) {
      const runtimeError = deps.runtimeError();
      if (runtimeError !== undefined) {
        if (!skipping) log.error("Skipping pod synchronization", { err: runtimeError, retryMs: backoff });
        skipping = true;
        if (!(await delay(clock, backoff, signal))) break;
        backoff = Math.min(backoff * 2, RUNTIME_BACKOFF_MAX_MS);
        continue;
      }
      if (skipping) log.info("Resuming pod synchronization");
      skipping = false;
      backoff = RUNTIME_BACKOFF_BASE_MS;

      monitor.lastEntry = clock.now();
      let event: LoopEvent;
      try {
        event = await inbox.receive({ signal });
      } catch (err) {
        if (signal.aborted) break;
        throw err;
      }
      try {
        await dispatch(deps, event, signal);
      } catch (err) {
        // A handler bug must not stop every pod's reconciliation; the next event gets its turn.
        log.error("Sync loop iteration failed; continuing with the next event", { event: event.kind, err });
      }
      monitor.lastEntry = clock.now();
    }
  } finally {
    lifetime.abort();
    inbox.close();
    await Promise.all(pumps);
  }
}

/** One syncLoopIteration. */
async function dispatch(deps: SyncLoopDeps, event: LoopEvent, signal: AbortSignal): Promise<void> {
  const { handlers, log } = deps;
  switch (event.kind) {
    case "config": {
      deps.onActivity?.();
      const { op, source, pods } = event.update;
      const names = pods.map(podRef);
      if (op === "RECONCILE") log.debug("SyncLoop RECONCILE", { source, pods: names }, 4);
      else if (pods.length > 0) log.info(`SyncLoop ${op}`, { source, pods: names });
      switch (op) {
        case "ADD":
          handlers.handlePodAdditions(pods);
          break;
        case "UPDATE":
        case "DELETE": // graceful deletion: the worker sees the deletion timestamp
          handlers.handlePodUpdates(pods);
          break;
        case "REMOVE":
          handlers.handlePodRemoves(pods);
          break;
        case "RECONCILE":
          handlers.handlePodReconcile(pods);
          break;
        default:
          log.error("Invalid pod config operation; ignoring it", { op: String(op), source });
      }
      deps.sourcesReady.addSource(source);
      return;
    }
    case "pleg": {
      deps.onActivity?.();
      const e = event.event;
      if (e.type !== "ContainerRemoved") {
        const pod = deps.podManager.get(e.id);
        if (pod) {
          log.debug("SyncLoop (PLEG): event for pod", { podUID: e.id, type: e.type, data: e.data }, 4);
          handlers.handlePodSyncs([pod]);
        } else {
          log.debug("SyncLoop (PLEG): pod does not exist, ignoring event", { podUID: e.id, type: e.type }, 4);
        }
      }
      if (e.type === "ContainerDied") deps.containerDeletor.deleteContainersInPod(e.id, deps.shouldPodContentBeRemoved(e.id));
      return;
    }
    case "probe": {
      // A liveness failure syncs the pod so the runtime kills and restarts the container; a
      // readiness or startup change syncs it so its status (Ready, Started) is generated anew.
      const { probe, update } = event;
      if (probe === "liveness" && update.result !== "Failure") return;
      const pod = deps.podManager.get(update.podUID);
      if (!pod) {
        log.debug("SyncLoop (probe): pod does not exist, ignoring the result", { probe, podUID: update.podUID }, 4);
        return;
      }
      const status = probe === "liveness" ? "unhealthy" : probe === "readiness" ? (update.result === "Success" ? "ready" : "") : update.result === "Success" ? "started" : "unhealthy";
      log.debug("SyncLoop (probe)", { probe, status, pod: podRef(pod), containerName: update.containerName }, 1);
      handlers.handlePodSyncs([pod]);
      return;
    }
    case "sync": {
      const pods = getPodsToSync(deps);
      if (pods.length > 0) handlers.handlePodSyncs(pods);
      return;
    }
    case "housekeeping":
      if (!deps.sourcesReady.allReady()) {
        log.debug("SyncLoop (housekeeping, skipped): sources aren't ready yet", {}, 4);
        return;
      }
      try {
        await deps.housekeeping.run(signal);
      } catch (err) {
        log.error("Failed cleaning pods; retrying at the next housekeeping", { err });
      }
      return;
  }
}

/** getPodsToSync: the desired pods whose work is due, and those a sync loop handler asks for. */
function getPodsToSync(deps: SyncLoopDeps): Pod[] {
  const due = new Set(deps.workQueue.getWork());
  const handlers = deps.podSyncLoopHandlers ?? [];
  return deps.podManager.pods().filter((pod) => due.has(podUID(pod)) || handlers.some((h) => h.shouldSync(pod)));
}

async function pumpConfig(
  updates: AsyncIterable<PodUpdate>,
  send: (e: LoopEvent) => Promise<boolean>,
  signal: AbortSignal,
  log: Logger,
) {
  // The pod config ends its stream when its own signal aborts; this pump does not wait for that,
  // so shutting the loop down never depends on another subsystem's stop order.
  const it = updates[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await nextUnlessAborted(it, signal);
      if (next === undefined) return;
      if (next.done) break;
      if (!(await send({ kind: "config", update: next.value }))) return;
    }
  } finally {
    // Closing is best effort: the source may already have ended its stream with its own signal.
    void it.return?.().catch(() => {});
  }
  // With no source configured the stream ends at once; the loop still runs the PLEG, the resync
  // and housekeeping (which then stops every runtime pod, as the kubelet would).
  if (!signal.aborted) log.debug("Pod config updates ended; no more config changes will arrive", {}, 2);
}

/** The iterator's next result, or undefined once the signal aborts (the pending next is abandoned). */
function nextUnlessAborted<T>(it: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T> | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    it.next().then(
      (r) => {
        signal.removeEventListener("abort", onAbort);
        resolve(r);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

async function pumpPleg(pleg: PlegEventSource, send: (e: LoopEvent) => Promise<boolean>, signal: AbortSignal) {
  for await (const event of pleg.iterate(signal)) {
    if (!(await send({ kind: "pleg", event }))) return;
  }
}

async function pumpProbe(probe: ProbeType, updates: ProbeUpdateSource, send: (e: LoopEvent) => Promise<boolean>, signal: AbortSignal) {
  for await (const update of updates.iterate(signal)) {
    if (!(await send({ kind: "probe", probe, update }))) return;
  }
}

async function pumpTicks(
  clock: Clock,
  periodMs: number,
  tick: LoopEvent,
  send: (e: LoopEvent) => Promise<boolean>,
  signal: AbortSignal,
) {
  while (await delay(clock, periodMs, signal)) {
    if (!(await send(tick))) return;
  }
}
