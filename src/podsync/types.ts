/**
 * The narrow views pod sync has of the subsystems it drives, each derived from the
 * owner's own type (a Pick of the methods it calls), so a change of the owner's contract is a
 * compile error here rather than a silent drift. The wiring (kubelet/) passes the real modules; the unit tests
 * pass fakes that implement only this much. Every call that may reach the runtime takes the
 * caller's AbortSignal, so none of them can hold shutdown for the CRI timeout.
 */
import type { Pod } from "../api/index.ts";
import type { Channel } from "../lib/index.ts";
import type { PodLifecycleEvent } from "../pleg/index.ts";
import type { KnownPodWorker, PodWorkers as OwnPodWorkers, WorkQueue as OwnWorkQueue } from "../podworkers/index.ts";
import type { RuntimeManager } from "../runtime/index.ts";
import type { StatusManager as OwnStatusManager } from "../status/index.ts";

/** The runtime manager as the pod syncer and housekeeping use it. */
export type Runtime = Pick<RuntimeManager, "syncPod" | "killPod" | "getPodStatus" | "getPods" | "forgetPod">;

/** Runtime readiness as the CRI Status call reports it. */
export type RuntimeStatusSource = Pick<RuntimeManager, "runtimeStatus">;

/** The status manager: the API status of every pod bunlet runs. */
export type StatusManager = Pick<OwnStatusManager, "setPodStatus" | "getPodStatus" | "getPodPhase" | "terminatePod" | "removeOrphanedStatuses" | "deletePodStatus">;

/** The pod workers as the sync loop's handlers and housekeeping drive them. */
export interface PodWorkers
  extends Pick<
    OwnPodWorkers,
    "updatePod" | "isPodKnownTerminated" | "isPodTerminationRequested" | "shouldPodContentBeRemoved" | "observeRuntimePods"
  > {
  /** The owner's syncKnownPods; housekeeping reads (and adds to) what each worker is doing. */
  syncKnownPods(desired: Pod[]): Map<string, KnownPodWorker>;
}

/** The work queue the pod workers fill with "sync this pod again at" entries. */
export type WorkQueue = Pick<OwnWorkQueue, "getWork">;

/** Where PLEG events come from (the PLEG's event channel). */
export type PlegEventSource = Pick<Channel<PodLifecycleEvent>, "iterate">;

/** `<root-dir>/pods/<uid>` and its subdirectories (pod-dirs.ts). */
export interface PodDirs {
  make(uid: string): Promise<void>;
  /** UIDs that have a directory. */
  list(): Promise<string[]>;
  /** Removes the pod's directory; refuses (throws) while something is mounted under it. */
  remove(uid: string): Promise<void>;
}
