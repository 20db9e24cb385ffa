/**
 * The pods area of the wiring, built in order: the PodWorkersRef (how the parts made before the
 * pod workers reach them), the shared pod policy (wire-pod-policy.ts), the pod syncer and the pod
 * workers (wire-pod-workers.ts), then the sync loop with its handlers, housekeeping and container
 * GC (wire-sync-loop.ts). Nothing runs until start(); the sync loop then routes config updates,
 * PLEG events and probe results to the workers until shutdown, which stops the loops first and
 * then abandons what the workers were doing (no pod is killed).
 */
import type { PodList, PodStatus, Pod } from "../api/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { EventRecorder } from "../events/index.ts";
import { killPodNow, PodWorkersRef, type PodCgroupManager, type PodManager } from "../podsync/index.ts";
import type { HealthCheck } from "../server/index.ts";
import type { StatusManager } from "../status/index.ts";
import type { VolumeManager } from "../volumes/index.ts";
import type { WireBase } from "./wire-base.ts";
import { wirePodPolicy } from "./wire-pod-policy.ts";
import { wirePodSyncer, wirePodWorkers } from "./wire-pod-workers.ts";
import type { RuntimeParts } from "./wire-runtime.ts";
import type { SourceParts } from "./wire-sources.ts";
import { wireSyncLoop } from "./wire-sync-loop.ts";

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
  /** The container manager, for pod cgroups when cgroupsPerQOS; undefined runs pods in the runtime's default cgroup. */
  cm?: PodCgroupManager;
  /** What allocatable leaves out of capacity, for admission (the container manager's reservation). */
  allocatableReservation?: ReadonlyMap<string, bigint>;
}

export function wirePods(config: BunletConfig, base: WireBase, rt: RuntimeParts, sources: SourceParts, opts: PodOptions): PodParts {
  const { podManager, statusManager } = opts;
  const stack = new AsyncDisposableStack();
  const workersRef = new PodWorkersRef(base.clock);
  const policy = wirePodPolicy(config, base, rt, sources, opts, workersRef);
  const syncer = wirePodSyncer(base, rt, opts, policy, workersRef);
  const podWorkers = wirePodWorkers(config, base, rt, syncer, policy, stack);
  workersRef.connect(podWorkers);
  const loop = wireSyncLoop(config, base, rt, sources, opts, policy, podWorkers);
  return {
    activePods: policy.activePods,
    killPod: (pod, gracePeriodSeconds, statusFn, evict) => killPodNow({ podWorkers, clock: base.clock }, pod, gracePeriodSeconds, statusFn, evict),
    deleteUnusedContainers: (signal) => rt.runtime.garbageCollect(loop.isPodGone, { signal }),
    podList: () => podManager.podList((uid) => statusManager.getPodStatus(uid)),
    mirrorPodOf: policy.mirrorPods?.mirrorPodOf,
    checks: [loop.healthCheck],
    start: () => loop.start(stack),
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}
