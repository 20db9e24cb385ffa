/**
 * One turn of a pod worker (the body of podWorkerLoop): wait until the pod cache holds status
 * newer than the worker's previous sync, then call the PodSyncer step that matches the pod's
 * lifecycle. It only reports what happened; the caller moves the lifecycle on.
 */
import type { Pod } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import type { RuntimePodStatus } from "../container/index.ts";
import { naturalGracePeriod, type PodStatusFn } from "./sync-status.ts";
import type { PodStatusCache, PodSyncer, PodWorkType, SyncPodResult, UpdatePodOptions } from "./types.ts";

export interface PodWork {
  workType: PodWorkType;
  options: UpdatePodOptions;
}

export interface WorkResult {
  isTerminal: boolean;
  /** Undefined on success. */
  error: unknown;
  /** A syncer step ran (the worker's lastSyncTime moves on only then). */
  synced: boolean;
  /** For the worker to call once it has moved its lastSyncTime on (PodSyncer.syncPod). */
  postSync?: () => void;
}

export interface RunWorkDeps {
  syncer: PodSyncer;
  cache: PodStatusCache;
  log: Logger;
  /** Marks the termination as seen by the worker and returns the kill's status function. */
  acknowledgeTerminating: () => PodStatusFn | undefined;
}

export async function runWork(
  deps: RunWorkDeps,
  uid: string,
  work: PodWork,
  signal: AbortSignal,
  lastSyncTime: number,
): Promise<WorkResult> {
  const { options } = work;
  const runningPod = options.runningPod;
  if (runningPod !== undefined) {
    // A runtime-only pod has no spec and no status worth waiting for: it is only ever killed.
    deps.acknowledgeTerminating();
    return attempt(async () => {
      await deps.syncer.syncTerminatingRuntimePod(signal, runningPod);
      return { isTerminal: false };
    });
  }
  const pod = options.pod;
  if (pod === undefined) {
    return { isTerminal: false, error: new Error(`pod update for ${uid} carries neither a pod nor a runtime pod`), synced: false };
  }

  let podStatus: RuntimePodStatus;
  try {
    const entry = await deps.cache.getNewerThan(uid, lastSyncTime, { signal });
    if (entry.error !== undefined && entry.error !== null) {
      deps.log.warn("Error determining pod status, will retry the sync", { err: entry.error });
      return { isTerminal: false, error: entry.error, synced: false };
    }
    podStatus = entry.status;
  } catch (err) {
    return { isTerminal: false, error: err ?? new Error("waiting for pod status failed"), synced: false };
  }

  return attempt(() => dispatch(deps, work, pod, podStatus, signal));
}

async function dispatch(deps: RunWorkDeps, work: PodWork, pod: Pod, podStatus: RuntimePodStatus, signal: AbortSignal): Promise<SyncPodResult> {
  const { options } = work;
  switch (work.workType) {
    case "TerminatedPod":
      await deps.syncer.syncTerminatedPod(signal, pod, podStatus);
      return { isTerminal: false };
    case "TerminatingPod": {
      const gracePeriod = options.killPodOptions?.gracePeriodSecondsOverride ?? naturalGracePeriod(pod);
      const podStatusFn = deps.acknowledgeTerminating();
      await deps.syncer.syncTerminatingPod(signal, pod, podStatus, gracePeriod, podStatusFn);
      return { isTerminal: false };
    }
    case "SyncPod":
      return deps.syncer.syncPod(signal, options.updateType, pod, options.mirrorPod, podStatus);
  }
}

async function attempt(step: () => Promise<SyncPodResult>): Promise<WorkResult> {
  try {
    const { isTerminal, postSync } = await step();
    return { isTerminal, error: undefined, synced: true, postSync };
  } catch (err) {
    // A rejection with no reason still is a failure; never let it pass as success.
    return { isTerminal: false, error: err ?? new Error("pod sync failed without a reason"), synced: true };
  }
}
