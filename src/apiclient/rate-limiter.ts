/**
 * client-go's default client-side rate limiter (flowcontrol.NewTokenBucketRateLimiter, over
 * golang.org/x/time/rate): a bucket of `burst` tokens, full at the start, refilled at `qps` per
 * second. Every request takes one token; when none is left it waits its turn, in arrival order
 * (a reservation may drive the bucket negative, so later callers wait longer). A caller whose
 * signal aborts while waiting gives its token back.
 */
import type { Clock } from "../lib/index.ts";

export interface RateLimiter {
  /** Resolves when the request may go; rejects with the signal's reason if it aborts first. */
  wait(signal?: AbortSignal): Promise<void>;
}

/** qps <= 0 turns limiting off (client-go: QPS -1, as the kubelet's heartbeat client uses). */
export function createRateLimiter(clock: Clock, qps: number, burst: number): RateLimiter {
  if (qps <= 0) return { wait: async (signal) => signal?.throwIfAborted() };
  return new TokenBucket(clock, qps, Math.max(1, burst));
}

export class TokenBucket implements RateLimiter {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(clock: Clock, qps: number, burst: number) {
    this.#clock = clock;
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** Tokens available now (negative while callers are queued). */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = (-this.#tokens / this.#qps) * 1000;
    try {
      await this.#clock.sleep(waitMs, signal);
    } catch (err) {
      // rate.Reservation.Cancel: the token goes back to the bucket.
      this.#refill();
      this.#tokens = Math.min(this.#burst, this.#tokens + 1);
      throw err;
    }
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#last) / 1000;
    this.#last = now;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#qps);
  }
}
