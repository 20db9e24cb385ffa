/**
 * The sync loop and what it routes to: the sync handlers (with admission and the resize hooks),
 * housekeeping and container GC. start() runs the loop, container GC, the mirror pods' watch and
 * the allocation manager's retries until this area's teardown aborts them.
 */
import type { BunletConfig } from "../config/index.ts";
import { collectGarbage, IdleRelease, releaseFreeMemory } from "../lib/index.ts";
import type { PodWorkers } from "../podworkers/index.ts";
import { ContainerGC, createHousekeeping, createPodAdmitter, createPodHandlers, observeRuntimeAtStart, runSyncLoop, SyncLoopMonitor, type PodHandlers } from "../podsync/index.ts";
import { syncLoopHealthCheck, type HealthCheck } from "../server/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import type { PodPolicy } from "./wire-pod-policy.ts";
import type { PodOptions } from "./wire-pods.ts";
import type { RuntimeParts } from "./wire-runtime.ts";
import type { SourceParts } from "./wire-sources.ts";

/** How long without a config update or a PLEG event before the garbage of the work is given back (lib/idle-release.ts). */
const IDLE_RELEASE_QUIET_MS = 10_000;
/** At rest, a full collection this often (docs/lean.md, "The heap at rest"). */
const IDLE_COLLECT_MS = 15_000;
/** Inside a burst, a full collection this often (docs/lean.md, "The peak of a burst"). */
const BURST_COLLECT_MS = 3_000;
/** Inside a burst, the collections take at most this share of the time (docs/lean.md, "The burst's collections"). */
const BURST_COLLECT_SHARE = 0.01;

export interface SyncLoopParts {
  /** A pod whose containers and content may go: all sources ready, none wants it, its worker agrees. */
  isPodGone(uid: string): boolean;
  /** The /healthz syncloop check. */
  healthCheck: HealthCheck;
  /** Starts the loops; `stack` stops them first thing at teardown. */
  start(stack: AsyncDisposableStack): void;
}

interface SyncHandlerParts {
  handlers: PodHandlers;
  housekeeping: ReturnType<typeof createHousekeeping>;
  containerGC: ContainerGC;
  isPodGone(uid: string): boolean;
}

/** The handlers (with admission and the resize hooks), housekeeping and container GC the loop routes to. */
function wireSyncHandlers(base: WireBase, rt: RuntimeParts, sources: SourceParts, opts: PodOptions, policy: PodPolicy, podWorkers: PodWorkers): SyncHandlerParts {
  const { clock, log, metrics } = base;
  const { podManager, statusManager } = opts;
  const { runtime } = rt;
  const { sourcesReady } = sources;
  const isPodGone = (uid: string) => sourcesReady.allReady() && !podManager.has(uid) && podWorkers.shouldPodContentBeRemoved(uid);
  const containerGC = new ContainerGC({ runtime, isPodGone: (uid) => isPodGone(uid), clock, log });
  const { allocation } = policy;
  const admitPod = createPodAdmitter({ ...policy.admission, addPod: (active, pod) => allocation.manager.addPod(active, pod), podWorkers, statusManager, recorder: opts.recorder, log });
  const handlers = createPodHandlers({ podManager, podWorkers, sourcesReady, deleteAllContainers: (uid) => containerGC.deleteContainersInPod(uid, true), admitPod, resize: allocation.handlers, clock, log });
  const housekeeping = createHousekeeping({
    podManager,
    podWorkers,
    runtime,
    statusManager,
    podDirs: policy.podDirs,
    probeManager: rt.probeManager,
    mirrorPods: policy.mirrorPods,
    podCgroups: policy.podCgroups,
    removeOrphanedAllocations: (keep) => allocation.removeOrphans(keep),
    cleanupUserNamespaces: (known, onDisk) => rt.userns.cleanupOrphaned(known, onDisk),
    clock,
    log,
    metrics,
  });
  return { handlers, housekeeping, containerGC, isPodGone };
}

export function wireSyncLoop(config: BunletConfig, base: WireBase, rt: RuntimeParts, sources: SourceParts, opts: PodOptions, policy: PodPolicy, podWorkers: PodWorkers): SyncLoopParts {
  const { clock, log } = base;
  const { handlers, housekeeping, containerGC, isPodGone } = wireSyncHandlers(base, rt, sources, opts, policy, podWorkers);
  const monitor = new SyncLoopMonitor();
  const idle = new IdleRelease({ clock, log, quietMs: IDLE_RELEASE_QUIET_MS, release: releaseFreeMemory, collectMs: IDLE_COLLECT_MS, collect: collectGarbage, burstCollectMs: BURST_COLLECT_MS, burstCollectShare: BURST_COLLECT_SHARE, rss: () => process.memoryUsage.rss() });
  const loopDeps = {
    updates: sources.podConfig.updates,
    pleg: rt.pleg.events,
    probeUpdates: rt.probeManager.updates,
    sourcesReady: sources.sourcesReady,
    handlers,
    podManager: opts.podManager,
    workQueue: policy.workQueue,
    podSyncLoopHandlers: [policy.activeDeadline],
    housekeeping,
    containerDeletor: containerGC,
    shouldPodContentBeRemoved: (uid: string) => podWorkers.shouldPodContentBeRemoved(uid),
    runtimeError: () => rt.runtimeState.runtimeError(),
    monitor,
    onActivity: () => idle.activity(),
    clock,
    log,
  };
  return {
    isPodGone,
    healthCheck: syncLoopHealthCheck({ clock, latestLoopEntryTime: () => (monitor.lastEntry === 0 ? undefined : monitor.lastEntry), syncFrequencyMs: config.syncFrequencyMs }),
    start(stack) {
      // The loops end when their controller aborts, which is the first thing this area's teardown does.
      const loops = new AbortController();
      const running = Promise.all([
        observeRuntimeAtStart({ runtime: rt.runtime, podWorkers, log }, loops.signal).then(() => runSyncLoop(loopDeps, loops.signal)),
        containerGC.run(loops.signal),
        policy.mirrorPods?.run(loops.signal),
        policy.allocation.manager.run(loops.signal),
      ]);
      deferLogged(stack, log, "sync loop", async () => {
        loops.abort();
        idle.stop();
        await running;
      });
    },
  };
}
