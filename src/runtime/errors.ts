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
