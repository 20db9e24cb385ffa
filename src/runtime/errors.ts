/**
 * A sync error that means "nothing is wrong, but this pod cannot progress before `expiresAt`"
 * (crash-loop or image pull backoff). The pod worker requeues the pod exactly at that time
 * instead of its generic 10 s error backoff (the kubelet's BackoffError, PR #133066).
 */
export class BackoffError extends Error {
  readonly expiresAt: number;
  readonly reason: string;

  constructor(reason: string, message: string, expiresAt: number) {
    super(message);
    this.name = "BackoffError";
    this.reason = reason;
    this.expiresAt = expiresAt;
  }
}

/** The earliest backoff expiry among errors (0 when none is a BackoffError). */
export function minBackoffExpiration(errors: unknown[]): number {
  let min = 0;
  for (const err of errors) {
    if (err instanceof BackoffError && (min === 0 || err.expiresAt < min)) min = err.expiresAt;
  }
  return min;
}
