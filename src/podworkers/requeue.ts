/**
 * When a pod worker syncs a pod again after a sync (pod_workers.go completeWork), as a pure
 * decision: at once after a lifecycle step, after the resync interval on success, after 1 s
 * while the pod network is not ready, at the backoff expiry for crash-loop and image backoff,
 * else after the 10 s error backoff. Every delay except "at once" is jittered by up to 50%.
 */
import { jitter } from "../lib/index.ts";
import { BackoffError } from "../runtime/errors.ts";

export const workerResyncIntervalJitterFactor = 0.5;
export const workerBackOffPeriodJitterFactor = 0.5;
export const backOffOnTransientErrorPeriodMs = 1_000;
export const defaultBackOffPeriodMs = 10_000;

/**
 * The kubelet returns this from syncPod while the runtime network is not ready (and the pod is
 * not hostNetwork); the worker then retries after about a second instead of its error backoff.
 */
export class NetworkNotReadyError extends Error {
  constructor(message: string) {
    super(`network is not ready: ${message}`);
    this.name = "NetworkNotReadyError";
  }
}

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
  if (findError(error, (e) => e instanceof NetworkNotReadyError)) {
    return jitter(backOffOnTransientErrorPeriodMs, workerBackOffPeriodJitterFactor, random);
  }
  let backoff = input.backOffPeriodMs;
  const expiresAt = earliestBackoffExpiry(error);
  if (expiresAt !== undefined) backoff = Math.min(Math.max(expiresAt - now, 0), resyncIntervalMs);
  return jitter(backoff, workerBackOffPeriodJitterFactor, random);
}

/** The earliest expiry of any BackoffError in err, its `errors` (AggregateError) or `cause` chain. */
export function earliestBackoffExpiry(err: unknown): number | undefined {
  let earliest: number | undefined;
  visitErrors(err, (e) => {
    if (e instanceof BackoffError && (earliest === undefined || e.expiresAt < earliest)) earliest = e.expiresAt;
    return false;
  });
  return earliest;
}

function findError(err: unknown, match: (e: unknown) => boolean): boolean {
  return visitErrors(err, match);
}

/** Walks an error tree (bounded depth, cycles ignored); true as soon as visit returns true. */
function visitErrors(err: unknown, visit: (e: unknown) => boolean, seen = new Set<unknown>(), depth = 0): boolean {
  if (err === undefined || err === null || seen.has(err) || depth > 8) return false;
  seen.add(err);
  if (visit(err)) return true;
  if (typeof err !== "object") return false;
  const { errors, cause } = err as { errors?: unknown; cause?: unknown };
  if (Array.isArray(errors)) {
    for (const inner of errors) if (visitErrors(inner, visit, seen, depth + 1)) return true;
  }
  return visitErrors(cause, visit, seen, depth + 1);
}
