/**
 * The upkeep area of the wiring (issue 19, what keeps an unattended node alive): container log
 * rotation, image garbage collection, the eviction manager, whose pressure conditions node
 * status reports, and graceful node shutdown. Nothing here starts a pod; everything runs from start() until shutdown, which stops
 * the loops and waits for them.
 */
import { join } from "node:path";
import { isStaticPod } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { sandboxImageFromStatusInfo } from "../containerd/index.ts";
import { nodeReference, podReference, type EventRecorder } from "../events/index.ts";
import { EvictionManager, type Threshold } from "../eviction/index.ts";
import { ImageGCManager } from "../imagegc/index.ts";
import { logind, ShutdownManager } from "../shutdown/index.ts";
import { ContainerLogManager } from "../logrotation/index.ts";
import { deferLogged } from "./teardown.ts";
import type { PodParts } from "./wire-pods.ts";
import type { WireBase } from "./wire-base.ts";
import type { RuntimeParts } from "./wire-runtime.ts";

export interface UpkeepParts extends AsyncDisposable {
  /** Starts the loops; they run until shutdown. */
  start(): void;
  /** The eviction manager's node conditions. */
  pressure(): { memory: boolean; disk: boolean; pid: boolean };
  /** "node is shutting down" while a shutdown stops the pods. */
  shutdownStatus(): string | undefined;
}

type EvictablePods = Pick<PodParts, "activePods" | "killPod" | "deleteUnusedContainers">;

export function wireUpkeep(
  config: BunletConfig,
  base: WireBase,
  rt: Pick<RuntimeParts, "cri" | "stats">,
  pods: EvictablePods,
  thresholds: Threshold[],
  recorder: EventRecorder,
): UpkeepParts {
  const stack = new AsyncDisposableStack();
  const logManager = containerLogRotation(config, base, rt);
  const imageGC = imageGarbageCollection(config, base, rt);
  const eviction = evictionManager(config, base, rt, pods, imageGC, thresholds, recorder);
  const shutdown = nodeShutdown(config, base, pods);
  return {
    pressure: () => eviction.pressure(),
    shutdownStatus: () => shutdown.shutdownStatus(),
    start() {
      const loops = new AbortController();
      const running = Promise.all([logManager.run(loops.signal), imageGC.run(loops.signal), eviction.run(loops.signal), shutdown.run(loops.signal)]);
      deferLogged(stack, base.log, "node upkeep (log rotation, image GC, eviction, node shutdown)", async () => {
        loops.abort();
        await running;
      });
    },
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}

/** Container log rotation over CRI ReopenContainerLog (containerLogMax*, podLogsMaxTotalSize). */
function containerLogRotation(config: BunletConfig, { clock, log }: WireBase, rt: Pick<RuntimeParts, "cri">): ContainerLogManager {
  return new ContainerLogManager(
    { cri: rt.cri, clock, log },
    {
      maxSize: config.containerLogMaxSize,
      maxFiles: config.containerLogMaxFiles,
      maxWorkers: config.containerLogMaxWorkers,
      monitorIntervalMs: config.containerLogMonitorIntervalMs,
      totalCap: config.podLogsMaxTotalSize,
      podLogsDir: config.podLogsDir,
    },
  );
}

/** Image GC against the image filesystem's usage, sparing the sandbox (pause) image. */
function imageGarbageCollection(config: BunletConfig, { clock, log }: WireBase, rt: Pick<RuntimeParts, "cri" | "stats">): ImageGCManager {
  return new ImageGCManager(
    {
      cri: rt.cri,
      imageFs: async (signal) => {
        const fs = (await rt.stats.summary({ withoutPods: true, signal })).node.runtime?.imageFs;
        if (fs?.capacityBytes === undefined || fs.availableBytes === undefined) return undefined;
        return { capacityBytes: Number(fs.capacityBytes), availableBytes: Number(fs.availableBytes) };
      },
      sandboxImage: async (signal) => {
        const { info } = await rt.cri.runtime.status({ verbose: true }, { signal });
        return sandboxImageFromStatusInfo(info);
      },
      clock,
      log,
    },
    {
      highThresholdPercent: config.imageGCHighThresholdPercent,
      lowThresholdPercent: config.imageGCLowThresholdPercent,
      minAgeMs: config.imageMinimumGCAgeMs,
      maxAgeMs: config.imageMaximumGCAgeMs,
      periodMs: config.imageGCPeriodMs,
    },
  );
}

/** The eviction manager: thresholds against the stats summary, reclaiming containers and images before evicting pods. */
function evictionManager(
  config: BunletConfig,
  { clock, log, metrics }: WireBase,
  rt: Pick<RuntimeParts, "stats">,
  pods: EvictablePods,
  imageGC: ImageGCManager,
  thresholds: Threshold[],
  recorder: EventRecorder,
): EvictionManager {
  return new EvictionManager(
    {
      summary: (signal, withPods) => rt.stats.summary({ withoutPods: !withPods, signal }),
      activePods: () => pods.activePods(),
      isStatic: (pod) => isStaticPod(pod),
      killPod: (pod, grace, statusFn) => pods.killPod(pod, grace, statusFn, true),
      reclaim: {
        deleteAllUnusedContainers: (signal) => pods.deleteUnusedContainers(signal),
        deleteUnusedImages: (signal) => imageGC.deleteUnusedImages(signal),
      },
      onEvicted: (signal) => metrics.evictions.inc({ eviction_signal: signal }),
      nodeWarning: (reason, message) => recorder.event(nodeReference(config.nodeName), "Warning", reason, message),
      podWarning: (pod, reason, message, annotations) => recorder.event(podReference(pod), "Warning", reason, message, annotations),
      clock,
      log,
    },
    {
      thresholds,
      pressureTransitionPeriodMs: config.evictionPressureTransitionPeriodMs,
      maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
      evictStaticPods: config.evictStaticPods,
      // The kubelet's default; bunlet does not read localStorageCapacityIsolation: false.
      localStorageCapacityIsolation: true,
    },
  );
}

/** Graceful node shutdown through logind's inhibitor lock, its state kept under the root dir. */
function nodeShutdown(config: BunletConfig, { clock, log, metrics }: WireBase, pods: EvictablePods): ShutdownManager {
  return new ShutdownManager(
    {
      logind: {
        unavailableReason: logind.logindUnavailableReason,
        readInhibitDelayMaxMs: logind.readInhibitDelayMaxMs,
        setInhibitDelayMax: logind.setInhibitDelayMax,
        acquireInhibitorLock: logind.acquireInhibitorLock,
        monitorShutdown: logind.monitorShutdown,
      },
      activePods: () => pods.activePods(),
      killPod: (pod, grace, statusFn) => pods.killPod(pod, grace, statusFn, false),
      clock,
      log,
      state: { path: join(config.rootDir, "graceful_node_shutdown_state"), metrics },
    },
    { gracePeriodMs: config.shutdownGracePeriodMs, criticalGracePeriodMs: config.shutdownGracePeriodCriticalPodsMs },
  );
}
