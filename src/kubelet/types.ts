/**
 * The narrow views the kubelet core has of the subsystems it drives. Each subsystem folder has a
 * richer API; wire.ts adapts the real modules to these shapes, and the unit tests use fakes that
 * implement only this much. Nothing here is implemented in src/kubelet except PodSyncer.
 */
import type { Pod, PodStatus } from "../api/index.ts";
import type { PodLifecycleEvent } from "../pleg/types.ts";
import type { RuntimePodStatus, RuntimePod } from "../container/index.ts";

/** What the config sources deliver (src/podconfig). */
export type PodOperation = "ADD" | "UPDATE" | "DELETE" | "REMOVE" | "RECONCILE";

export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

/** The runtime manager (src/runtime) as the pod syncer, housekeeping and GC use it. */
export interface Runtime {
  /** Converges the pod's containers to its spec; the error (if any) is returned, not thrown. */
  syncPod(pod: Pod, podStatus: RuntimePodStatus, opts: { signal: AbortSignal }): Promise<{ error?: unknown }>;
  /** Stops every container, then every sandbox; the first failure (if any) is returned, not thrown. */
  killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverrideSeconds: number | undefined,
    opts: { signal: AbortSignal },
  ): Promise<{ error?: unknown }>;
  getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus>;
  /** Every runtime pod by default; `all: false`: only ready sandboxes and running containers (what housekeeping may kill). */
  getPods(opts?: { all?: boolean }): Promise<RuntimePod[]>;
  /** Removes dead containers of the pod (all of them with removeAll). */
  cleanUpContainersInPod(uid: string, opts?: { removeAll?: boolean }): Promise<void>;
  /** Forgets per-pod state (crash-loop and image backoff entries) of a finished pod. */
  forgetPod(uid: string): void;
}

/** Runtime readiness as the CRI Status call reports it. */
export interface RuntimeStatusSource {
  runtimeStatus(): Promise<{ runtimeReady: boolean; networkReady: boolean; message: string }>;
}

/** The status manager (src/status): the API status of every pod bunlet runs. */
export interface StatusManager {
  setPodStatus(pod: Pod, status: PodStatus): void;
  getPodStatus(uid: string): PodStatus | undefined;
  terminatePod(pod: Pod): void;
  removeOrphanedStatuses(keep: Set<string>): void;
  deletePodStatus(uid: string): void;
}

/** generateAPIPodStatus bound to the node (host IPs, clock, waiting reasons, old status). */
export type StatusGenerator = (pod: Pod, podStatus: RuntimePodStatus, opts: { podIsTerminal: boolean }) => PodStatus;

export type UpdateType = "create" | "update" | "sync" | "kill";

export interface KillPodOptions {
  gracePeriodSecondsOverride?: number;
  evict?: boolean;
  podStatusFn?: (status: PodStatus) => void;
  onCompleted?: () => void;
}

export interface UpdatePodOptions {
  updateType: UpdateType;
  pod?: Pod;
  mirrorPod?: Pod;
  runningPod?: RuntimePod;
  killPodOptions?: KillPodOptions;
  startTime?: number;
}

export type PodWorkerState = "SyncPod" | "TerminatingPod" | "TerminatedPod";

/** The pod workers (src/podworkers): one serialized worker per pod UID. */
export interface PodWorkers {
  updatePod(options: UpdatePodOptions): void;
  /** Forgets finished workers of pods not in `desired`; returns what every remaining worker is doing. */
  syncKnownPods(desired: Pod[]): Map<string, { state: PodWorkerState; orphan: boolean }>;
  isPodKnownTerminated(uid: string): boolean;
  isPodTerminationRequested(uid: string): boolean;
  shouldPodContentBeRemoved(uid: string): boolean;
}

/** The work queue the pod workers fill with "sync this pod again at" entries. */
export interface WorkQueue {
  /** UIDs that are due, removed from the queue. */
  getWork(): string[];
}

/** `<root-dir>/pods/<uid>` and its subdirectories. */
export interface PodDirs {
  make(uid: string): Promise<void>;
  /** UIDs that have a directory. */
  list(): Promise<string[]>;
  /** Removes the pod's directory; refuses (throws) while something is mounted under it. */
  remove(uid: string): Promise<void>;
}

/** Where PLEG events come from (the evented stream, the relister, or both). */
export interface PlegEventSource {
  iterate(signal: AbortSignal): AsyncIterable<PodLifecycleEvent>;
}

/** The PodSyncer contract of the pod workers (pod_workers.go podSyncer); implemented here. */
export interface PodSyncer {
  syncPod(
    signal: AbortSignal,
    updateType: UpdateType,
    pod: Pod,
    mirrorPod: Pod | undefined,
    podStatus: RuntimePodStatus,
  ): Promise<{ isTerminal: boolean }>;
  syncTerminatingPod(
    signal: AbortSignal,
    pod: Pod,
    podStatus: RuntimePodStatus,
    gracePeriodSeconds: number | undefined,
    podStatusFn?: (status: PodStatus) => void,
  ): Promise<void>;
  syncTerminatingRuntimePod(signal: AbortSignal, runningPod: RuntimePod): Promise<void>;
  syncTerminatedPod(signal: AbortSignal, pod: Pod, podStatus: RuntimePodStatus): Promise<void>;
}
