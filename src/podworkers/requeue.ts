/**
 * When a pod worker syncs a pod again after a sync (pod_workers.go completeWork), as a pure
 * decision: at once after a lifecycle step, after the resync interval on success, after 1 s
 * while the pod network is not ready, at the backoff expiry for crash-loop and image backoff,
 * else after the 10 s error backoff. Every delay except "at once" is jittered by up to 50%.
 */
import { jitter } from "../lib/index.ts";
import { Reason, SyncError } from "../runtime/index.ts";

const workerResyncIntervalJitterFactor = 0.5;
export const workerBackOffPeriodJitterFactor = 0.5;
const backOffOnTransientErrorPeriodMs = 1_000;
export const defaultBackOffPeriodMs = 10_000;

export interface RequeueInput {
  /** The pod moved to its next lifecycle step (terminating, terminated). */
  phaseTransition: boolean;
  /** The sync's error; undefined on success. */
  error: unknown;
  now: number;
  resyncIntervalMs: number;
  backOffPeriodMs: number;
  random: () => number;
}

/** How long until the pod is due again. */
export function requeueDelay(input: RequeueInput): number {
  const { error, now, resyncIntervalMs, random } = input;
  if (input.phaseTransition) return 0;
  if (error === undefined) return jitter(resyncIntervalMs, workerResyncIntervalJitterFactor, random);
  const syncError = error instanceof SyncError ? error : undefined;
  if (syncError?.reason === Reason.NetworkNotReady) {
    return jitter(backOffOnTransientErrorPeriodMs, workerBackOffPeriodJitterFactor, random);
  }
  let backoff = input.backOffPeriodMs;
  if (syncError?.backoffUntil) backoff = Math.min(Math.max(syncError.backoffUntil - now, 0), resyncIntervalMs);
  return jitter(backoff, workerBackOffPeriodJitterFactor, random);
}
