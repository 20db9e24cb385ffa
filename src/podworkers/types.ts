/**
 * The pod workers' contracts (pkg/kubelet/pod_workers.go): what callers send (UpdatePodOptions),
 * what the workers call back (PodSyncer, implemented by src/kubelet) and what they answer
 * (PodWorkers). Times are milliseconds since the epoch; grace periods are seconds.
 */
import type { Pod, PodStatus } from "../api/index.ts";
import type { RuntimePodStatus, RuntimePod } from "../container/index.ts";

export type SyncPodType = "create" | "update" | "sync" | "kill";

/** The kubelet's PodWorkerState, as SyncKnownPods reports it. */
export type PodWorkType = "SyncPod" | "TerminatingPod" | "TerminatedPod";

export interface KillPodOptions {
  /** A shorter grace period than the pod's own (eviction, orphan cleanup); it can never grow. */
  gracePeriodSecondsOverride?: number;
  /** The kill is an eviction: the pod's content may be removed as soon as it stopped. */
  evict?: boolean;
  /** Edits the status written when the pod terminates (the last kill's function wins). */
  podStatusFn?: (status: PodStatus) => void;
  /** Called once the pod can have no running containers (the kubelet's CompletedCh). */
  onCompleted?: () => void;
}

export interface UpdatePodOptions {
  updateType: SyncPodType;
  /** The pod to sync; required unless runningPod is set. */
  pod?: Pod;
  mirrorPod?: Pod;
  /** A runtime pod no config source knows: it can only be killed. */
  runningPod?: RuntimePod;
  killPodOptions?: KillPodOptions;
  /** When the change that caused this update was seen, for kubelet_pod_worker_duration_seconds. */
  startTime?: number;
}

/**
 * What syncPod reports: `isTerminal` says the pod reached Succeeded/Failed on its own; `postSync`
 * is called by the worker once it has taken the sync's end as its last sync time (kubelet.go
 * SyncPod's postSync: a relist of the pod it changed).
 */
export interface SyncPodResult {
  isTerminal: boolean;
  postSync?: () => void;
}

/** Implemented by the kubelet: the four steps of a pod's life on the node. */
export interface PodSyncer {
  /** Sets the pod up (SyncPodResult). */
  syncPod(
    signal: AbortSignal,
    updateType: SyncPodType,
    pod: Pod,
    mirrorPod: Pod | undefined,
    podStatus: RuntimePodStatus,
  ): Promise<SyncPodResult>;
  /** Stops every container; retried (with ever shorter grace) until it resolves. */
  syncTerminatingPod(
    signal: AbortSignal,
    pod: Pod,
    podStatus: RuntimePodStatus,
    gracePeriodSeconds: number,
    podStatusFn?: (status: PodStatus) => void,
  ): Promise<void>;
  /** Stops the containers of a pod that only the runtime knows. */
  syncTerminatingRuntimePod(signal: AbortSignal, runningPod: RuntimePod): Promise<void>;
  /** Releases what the stopped pod still holds and writes its final status. */
  syncTerminatedPod(signal: AbortSignal, pod: Pod, podStatus: RuntimePodStatus): Promise<void>;
}

/** The pod cache as the workers read it (src/pleg/cache.ts PodCache fits). */
export interface PodStatusCache {
  /** Resolves once the cache holds status of the pod newer than minTime. */
  getNewerThan(uid: string, minTime: number, opts: { signal?: AbortSignal }): Promise<{ status: RuntimePodStatus; error: unknown }>;
  /** The cached status now, if the cache can tell (used once, for pods first seen terminal). */
  get?(uid: string): { status: RuntimePodStatus };
}

export interface KnownPodWorker {
  state: PodWorkType;
  /** Not in the desired set passed to syncKnownPods. */
  orphan: boolean;
  /** A pod spec is known (false for runtime-only pods). */
  hasConfig: boolean;
  /** The known spec is a static pod. */
  static: boolean;
}

export interface PodWorkers {
  updatePod(options: UpdatePodOptions): void;
  /**
   * Forgets finished workers of pods not in `desired` (or that asked to restart with the same
   * UID), starts terminating orphans, and returns what every remaining worker is doing. The caller
   * re-creates desired pods that are missing from the answer.
   */
  syncKnownPods(desired: Pod[]): Map<string, KnownPodWorker>;
  /**
   * The pods the runtime runs now (housekeeping passes them, and start-up before any pod syncs): a
   * static pod does not start while a pod of its full name with another UID still runs there, so
   * the new version of a manifest edited while bunlet was stopped waits until housekeeping killed
   * the old one.
   */
  observeRuntimePods(pods: readonly RuntimePod[]): void;
  /** True once syncTerminatingPod succeeded for the pod (no container can be running). */
  isPodKnownTerminated(uid: string): boolean;
  /** True unless the pod is known to be stopped (true for unknown pods until the first syncKnownPods). */
  couldHaveRunningContainers(uid: string): boolean;
  /** True from the moment termination was requested until the worker is forgotten. */
  isPodTerminationRequested(uid: string): boolean;
  /** True once the worker stopped calling syncPod for a terminating pod (or for unknown pods, after sync). */
  shouldPodContainersBeTerminating(uid: string): boolean;
  /** True once the pod's containers are stopped (or for unknown pods, after sync). */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
  /** True for evicted pods, and for deleted pods once stopped (or for unknown pods, after sync). */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** True once syncTerminatedPod succeeded (or for unknown pods, after sync). */
  shouldPodBeFinished(uid: string): boolean;
  /** True while a static pod of that full name is terminating. */
  isPodForMirrorPodTerminatingByFullName(fullName: string): boolean;
  knownUids(): string[];
  /** Resolves when no worker is working (tests). */
  whenIdle(): Promise<void>;
  /** Aborts every worker (agent shutdown: containers are left alone) and waits for them. */
  stop(): Promise<void>;
}
