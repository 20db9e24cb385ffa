/**
 * The pods area of the wiring: the pod workers and the pod syncer they call, the status
 * generator, pod directories, the sync loop with its handlers and housekeeping, and container GC.
 * Nothing runs until start(); the sync loop then routes config updates, PLEG events and probe
 * results to the workers until shutdown, which stops the loops first and then abandons what the
 * workers were doing (no pod is killed).
 */
import { join } from "node:path";
import type { PodList, PodStatus } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import { isStaticPod, podFullName, podUID, type Pod } from "../api/index.ts";
import { admissionNode, admitHandlers, createPodAdmitter, sysctlAllowlist } from "../podsync/index.ts";
import { createAllocation } from "../podsync/index.ts";
import type { EventRecorder } from "../events/index.ts";
import { createMirrorPods } from "../mirrorpods/index.ts";
import { createPodWorkers, WorkQueue, type PodWorkers } from "../podworkers/index.ts";
import { syncLoopHealthCheck, type HealthCheck } from "../server/index.ts";
import { createStatusGenerator, type StatusManager } from "../status/index.ts";
import type { VolumeManager } from "../volumes/index.ts";
import { createActiveDeadlineHandler } from "../podsync/index.ts";
import { ContainerGC } from "../podsync/index.ts";
import { createPodHandlers } from "../podsync/index.ts";
import { createHousekeeping } from "../podsync/index.ts";
import { createPodDirs } from "../podsync/index.ts";
import type { PodManager } from "../podsync/index.ts";
import { createPodSyncer, type PodCgroups } from "../podsync/index.ts";
import { runSyncLoop, SyncLoopMonitor } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import type { RuntimeParts } from "./wire-runtime.ts";
import type { SourceParts } from "./wire-sources.ts";

export interface PodParts extends AsyncDisposable {
  /** The desired pods with the status bunlet computed (/pods). */
  podList(): PodList;
  /** The /healthz check of this area: syncloop. */
  checks: HealthCheck[];
  /** A static pod's mirror pod in the apiserver (for the status sync); undefined when standalone. */
  mirrorPodOf?: (staticPod: Pod) => Pod | undefined;
  /** Starts the sync loop and container GC; they run until shutdown. */
  start(): void;
  /** The pods that may be evicted: known, not terminal, not terminating. */
  activePods(): Pod[];
  /** Kills a pod (the kubelet's killPodNow), as an eviction or not; resolves once it has no running containers. */
  killPod(pod: Pod, gracePeriodSeconds: number, statusFn: (status: PodStatus) => void, evict: boolean): Promise<void>;
  /** Removes dead containers beyond the per-pod limit and those of pods that are gone (eviction's reclaim). */
  deleteUnusedContainers(signal: AbortSignal): Promise<void>;
}

export interface PodOptions {
  podManager: PodManager;
  statusManager: StatusManager;
  hostIPs: string[];
  volumes: VolumeManager;
  recorder: EventRecorder;
  /** The rate-limited API client when bunlet is a node of a cluster (mirror pods); undefined when standalone. */
  apiClient?: ApiClient;
  /** The pod cgroups (the container manager); undefined runs pods in the runtime's default cgroup. */
  podCgroups?: PodCgroups & { cleanupOrphaned(keep: ReadonlySet<string>): void };
  /** What allocatable leaves out of capacity, for admission (the container manager's reservation). */
  allocatableReservation?: ReadonlyMap<string, bigint>;
}

export function wirePods(config: BunletConfig, base: WireBase, rt: RuntimeParts, sources: SourceParts, opts: PodOptions): PodParts {
  const { clock, log, metrics, random, signal } = base;
  const { podManager, statusManager } = opts;
  const { runtime, probeManager } = rt;
  const stack = new AsyncDisposableStack();
  const dirs = createPodDirs({ podsDir: join(config.rootDir, "pods") });
  // A pod's directory goes only after its volumes are torn down (tmpfs mounts unmounted).
  const podDirs = { ...dirs, remove: async (uid: string) => (await opts.volumes.unmountPodVolumes(uid), await dirs.remove(uid)) };
  const workQueue = new WorkQueue(clock);
  const activeDeadline = createActiveDeadlineHandler({ podStatus: (uid) => statusManager.getPodStatus(uid), recorder: opts.recorder, clock });

  // The workers call the syncer, and the syncer asks the workers whether a pod is terminating:
  // the cycle is closed by binding the question late.
  let workers: PodWorkers | undefined;
  const { sourcesReady } = sources;
  const node = admissionNode(config, opts.allocatableReservation);
  const admit = admitHandlers(node, sysctlAllowlist(config));
  const activePods = () =>
    podManager.pods().filter((p) => {
      const uid = p.metadata.uid ?? "";
      const phase = statusManager.getPodPhase(uid);
      return !(workers?.isPodTerminationRequested(uid) ?? false) && phase !== "Failed" && phase !== "Succeeded";
    });
  let syncPodNow = (_pod: Pod): void => undefined;
  const allocation = createAllocation({
    rootDir: config.rootDir,
    actuated: rt.actuated,
    conditions: statusManager.resizeConditions,
    admit,
    activePods,
    podByUID: (uid) => podManager.get(uid),
    triggerPodSync: (pod) => syncPodNow(pod),
    sourcesReady: () => sourcesReady.allReady(),
    isPodResizeInProgress: (pod, podStatus) => runtime.isPodResizeInProgress(pod, podStatus),
    recorder: opts.recorder,
    clock,
    log,
  });
  // A mirror pod that changed (deleted, or edited) has its static pod synced, which puts it right.
  let resyncStatic = (_fullName: string): void => undefined;
  const mirrorPods = opts.apiClient
    ? createMirrorPods({ client: opts.apiClient, nodeName: config.nodeName, clock, random, log, resync: (fullName) => resyncStatic(fullName) })
    : undefined;
  const syncer = createPodSyncer({
    runtime,
    statusManager,
    generateStatus: createStatusGenerator({
      statusManager,
      waitingReason: (uid, name) => runtime.getContainerWaitingReason(uid, name),
      probeResult: (uid) => probeManager.statusLookup(uid),
      ranBeforeRestart: (at) => probeManager.ranBeforeRestart(at),
      actuatedResources: (uid, name) => runtime.actuatedResources(uid, name),
      hostIPs: opts.hostIPs,
      podSyncHandlers: [activeDeadline],
      clock,
    }),
    podDirs,
    podManager,
    probeManager,
    isTerminationRequested: (uid) => workers?.isPodTerminationRequested(uid) ?? false,
    networkNotReady: () => rt.runtimeState.networkError(),
    recorder: opts.recorder,
    mirrorPods,
    mountVolumes: (pod, signal) => opts.volumes.waitForAttachAndMount(pod, signal),
    unmountVolumes: (uid) => opts.volumes.unmountPodVolumes(uid),
    requestPodRelist: (uid) => rt.pleg.requestPodRelist(uid),
    requestPodReinspect: (uid) => rt.pleg.requestPodReinspect(uid),
    resize: allocation,
    podCgroups: opts.podCgroups,
    clock,
    log,
    metrics,
  });
  const ownWorkers = createPodWorkers({
    syncer,
    cache: rt.cache,
    workQueue,
    clock,
    random,
    log,
    metrics,
    resyncIntervalMs: config.syncFrequencyMs,
    signal,
  });
  // Every update hands the worker the pod with its allocated resources (pod_workers.go UpdatePod):
  // a resize not (yet) allocated never reaches the runtime.
  const podWorkers: PodWorkers = {
    ...ownWorkers,
    updatePod: (o) => ownWorkers.updatePod(o.pod ? { ...o, pod: allocation.manager.updatePodFromAllocation(o.pod).pod } : o),
  };
  workers = podWorkers;
  deferLogged(stack, log, "pod workers", () => ownWorkers.stop());

  const isPodGone = (uid: string) => sourcesReady.allReady() && !podManager.has(uid) && podWorkers.shouldPodContentBeRemoved(uid);
  const containerGC = new ContainerGC({
    runtime,
    isPodGone: (uid) => isPodGone(uid),
    clock,
    log,
  });
  const handlers = createPodHandlers({
    podManager,
    podWorkers,
    sourcesReady,
    deleteAllContainers: (uid) => containerGC.deleteContainersInPod(uid, true),
    admitPod: createPodAdmitter({
      node,
      sysctls: sysctlAllowlist(config),
      addPod: (active, pod) => allocation.manager.addPod(active, pod),
      podWorkers,
      statusManager,
      recorder: opts.recorder,
      log,
    }),
    resize: allocation.handlers,
    clock,
    log,
  });
  const housekeeping = createHousekeeping({
    podManager,
    podWorkers,
    runtime,
    statusManager,
    podDirs,
    probeManager,
    mirrorPods,
    podCgroups: opts.podCgroups,
    removeOrphanedAllocations: (keep) => allocation.removeOrphans(keep),
    clock,
    log,
    metrics,
  });
  // syncPodNow: HandlePodSyncs, then a relist of the pod.
  syncPodNow = (pod) => {
    handlers.handlePodSyncs([pod]);
    rt.pleg.requestPodRelist(podUID(pod));
  };
  resyncStatic = (fullName) => {
    const pods = podManager.pods().filter((p) => isStaticPod(p) && podFullName(p) === fullName);
    if (pods.length > 0) handlers.handlePodSyncs(pods);
  };
  const monitor = new SyncLoopMonitor();

  /**
   * Tells the pod workers what the runtime already runs before the first config update is
   * routed, so the new version of a static pod edited while bunlet was stopped waits for the old
   * one, which the first housekeeping kills.
   */
  async function observeRuntimeAtStart(signal: AbortSignal): Promise<void> {
    try {
      podWorkers.observeRuntimePods(await runtime.getPods({ all: false, signal }));
    } catch (err) {
      if (signal.aborted) return;
      log.warn("Could not list the runtime's pods at start-up; static pods are held back for old versions from the first housekeeping on", { err });
    }
  }

  return {
    activePods,
    killPod: (pod, gracePeriodSeconds, statusFn, evict) =>
      new Promise<void>((resolve, reject) => {
        // killPodNow's wait: max(grace × 1.5 s, 10 s).
        const timeoutMs = Math.max(gracePeriodSeconds * 1500, 10_000);
        const timer = clock.setTimer(timeoutMs, () => reject(new Error(`timeout waiting to kill pod ${pod.metadata.namespace}/${pod.metadata.name}`)));
        podWorkers.updatePod({
          updateType: "kill",
          pod,
          killPodOptions: {
            evict,
            gracePeriodSecondsOverride: gracePeriodSeconds,
            podStatusFn: statusFn,
            onCompleted: () => {
              timer.cancel();
              resolve();
            },
          },
        });
      }),
    deleteUnusedContainers: (signal) => runtime.garbageCollect(isPodGone, { signal }),
    podList: () => podManager.podList((uid) => statusManager.getPodStatus(uid)),
    mirrorPodOf: mirrorPods?.mirrorPodOf,
    checks: [
      syncLoopHealthCheck({
        clock,
        latestLoopEntryTime: () => (monitor.lastEntry === 0 ? undefined : monitor.lastEntry),
        syncFrequencyMs: config.syncFrequencyMs,
      }),
    ],
    start() {
      // The loops end when their controller aborts, which is the first thing this area's teardown does.
      const loops = new AbortController();
      const running = Promise.all([
        observeRuntimeAtStart(loops.signal).then(() =>
          runSyncLoop(
            {
              updates: sources.podConfig.updates,
              pleg: rt.pleg.events,
              probeUpdates: probeManager.updates,
              sourcesReady,
              handlers,
              podManager,
              workQueue,
              podSyncLoopHandlers: [activeDeadline],
              housekeeping,
              containerDeletor: containerGC,
              shouldPodContentBeRemoved: (uid) => podWorkers.shouldPodContentBeRemoved(uid),
              runtimeError: () => rt.runtimeState.runtimeError(),
              monitor,
              clock,
              log,
            },
            loops.signal,
          ),
        ),
        containerGC.run(loops.signal),
        mirrorPods?.run(loops.signal),
        allocation.manager.run(loops.signal),
      ]);
      deferLogged(stack, log, "sync loop", async () => {
        loops.abort();
        await running;
      });
    },
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}
