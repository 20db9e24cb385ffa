/**
 * A pod worker's lifecycle as a declared state with pure transitions (the kubelet keeps it as
 * timestamps and booleans in podSyncStatus):
 *
 *   syncing ──> terminating ──> terminated ──> finished
 *                    └─────────────────────────────^   (runtime-only pods, pods never started)
 *
 * Once termination is requested the state carries why (deleted, evicted or ended) and what the
 * worker learned on the way: whether it acknowledged the request (no new container starts),
 * whether a runtime-only kill was seen, and whether a create asked to restart the UID. Every
 * function here returns the next state and leaves its input alone; an event a state does not
 * take returns the same state.
 */
import type { Pod } from "../api/index.ts";
import type { PodWorkType, UpdatePodOptions } from "./types.ts";

/**
 * Why the pod is terminating: deleted (a deletion timestamp, a runtime-only kill, or nobody wants
 * it any more), evicted (a kill with evict: its content may go at once), or ended (a terminal
 * phase, or a kill of a pod that stays).
 */
export type TerminationCause = "deleted" | "evicted" | "ended";

export interface Termination {
  cause: TerminationCause;
  terminatingAt: number;
  /** The worker saw the request: no new container will be started (startedTerminating). */
  acknowledged: boolean;
  /** A runtime-only kill arrived: the pod must go through a terminating sync even if it never started. */
  observedRuntime: boolean;
  /** A create arrived for this UID while it was terminating; housekeeping restarts it later. */
  restartRequested: boolean;
}

export type WorkerState =
  | { kind: "syncing" }
  | ({ kind: "terminating" } & Termination)
  | ({ kind: "terminated"; terminatedAt: number } & Termination)
  | ({ kind: "finished"; terminatedAt: number } & Termination);

export const syncing: WorkerState = { kind: "syncing" };

/**
 * A pod first seen with a terminal API phase and nothing running in the runtime (a kubelet
 * restart): it already went through termination, so only syncTerminatedPod is left to run.
 */
export function alreadyTerminated(now: number): WorkerState {
  return { kind: "terminated", cause: "ended", terminatingAt: now, terminatedAt: now, acknowledged: true, observedRuntime: false, restartRequested: false };
}

/**
 * UpdatePod's rules for an update to a pod that is not terminating yet: the cause of the
 * termination it starts, or undefined when the pod keeps syncing. A runtime-only kill or a
 * deletion timestamp deletes the pod; a terminal phase ends it on its own terms; any other kill
 * ends it, or evicts it when asked to.
 */
export function terminationCause(pod: Pod, update: Pick<UpdatePodOptions, "updateType" | "killPodOptions">, isRuntimePod: boolean): TerminationCause | undefined {
  const phase = pod.status?.phase;
  if (isRuntimePod || pod.metadata.deletionTimestamp !== undefined) return "deleted";
  if (phase === "Failed" || phase === "Succeeded") return "ended";
  if (update.updateType !== "kill") return undefined;
  return update.killPodOptions?.evict ? "evicted" : "ended";
}

/** Termination is requested: a syncing pod starts terminating; a later request changes nothing. */
export function requestTermination(state: WorkerState, cause: TerminationCause, now: number): WorkerState {
  if (state.kind !== "syncing") return state;
  return { kind: "terminating", cause, terminatingAt: now, acknowledged: false, observedRuntime: false, restartRequested: false };
}

/** The worker saw the termination request: from now on it starts no container. */
export function acknowledgeTermination(state: WorkerState): WorkerState {
  return state.kind === "syncing" || state.acknowledged ? state : { ...state, acknowledged: true };
}

/** A runtime-only kill arrived for a pod that is terminating (or later). */
export function observeRuntime(state: WorkerState): WorkerState {
  return state.kind === "syncing" || state.observedRuntime ? state : { ...state, observedRuntime: true };
}

/** A create arrived for a UID that is terminating (or later): housekeeping restarts it once it is gone. */
export function requestRestart(state: WorkerState): WorkerState {
  return state.kind === "syncing" || state.restartRequested ? state : { ...state, restartRequested: true };
}

/** Nobody will send updates for the pod any more: it is deleted, unless an eviction already freed its content. */
export function orphan(state: WorkerState): WorkerState {
  if (state.kind === "syncing" || state.cause !== "ended") return state;
  return { ...state, cause: "deleted" };
}

/** syncTerminatingPod succeeded: no container can run any more. */
export function completeTerminating(state: WorkerState, now: number): WorkerState {
  return state.kind === "terminating" ? { ...state, kind: "terminated", terminatedAt: now } : state;
}

/** The worker is done with the pod (after syncTerminatedPod, or a pod that never started). */
export function finish(state: WorkerState, now: number): WorkerState {
  if (state.kind === "terminating") return { ...state, kind: "finished", terminatedAt: now };
  if (state.kind === "terminated") return { ...state, kind: "finished" };
  return state;
}

export function isTerminationRequested(state: WorkerState): boolean {
  return state.kind !== "syncing";
}

export function isTerminated(state: WorkerState): boolean {
  return state.kind === "terminated" || state.kind === "finished";
}

/** The work the next turn of the worker does. */
export function workType(state: WorkerState): PodWorkType {
  if (isTerminated(state)) return "TerminatedPod";
  if (state.kind === "terminating") return "TerminatingPod";
  return "SyncPod";
}

/** The worker acknowledged the termination: no container of the pod will be started again. */
export function containersTerminating(state: WorkerState): boolean {
  return state.kind !== "syncing" && state.acknowledged;
}

/** An evicted pod's content may go at once; a deleted pod's once it is stopped. */
export function contentRemovable(state: WorkerState): boolean {
  if (state.kind === "syncing") return false;
  return state.cause === "evicted" || (state.cause === "deleted" && isTerminated(state));
}

export function restartRequested(state: WorkerState): boolean {
  return state.kind !== "syncing" && state.restartRequested;
}

export function observedRuntime(state: WorkerState): boolean {
  return state.kind !== "syncing" && state.observedRuntime;
}
