/**
 * The projection work queue (client-go's rate-limited workqueue, as the kubelet's pod certificate
 * manager uses it): a key waits at most once, a key being handled is queued again only after it
 * is done, and a failed key comes back after its own exponential delay (5 ms doubling to 1000 s,
 * forgotten on success).
 */
import { Backoff, type Clock, type Timer } from "../lib/index.ts";

const FAILURE_INITIAL_MS = 5;
const FAILURE_MAX_MS = 1000 * 1000;

export class ProjectionQueue {
  readonly #clock: Clock;
  readonly #failures: Backoff;
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #dirtyWhileProcessing = new Set<string>();
  readonly #timers = new Set<Timer>();
  #wake: (() => void) | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#failures = new Backoff(clock, { initialMs: FAILURE_INITIAL_MS, maxMs: FAILURE_MAX_MS, });
  }

  add(key: string): void {
    if (this.#processing.has(key)) {
      this.#dirtyWhileProcessing.add(key);
      return;
    }
    this.#queued.add(key);
    this.#wake?.();
  }

  /** AddRateLimited: back after the key's next failure delay. */
  addRateLimited(key: string): void {
    const timer = this.#clock.setTimer(this.#failures.next(key), () => {
      this.#timers.delete(timer);
      this.add(key);
    });
    this.#timers.add(timer);
  }

  /** Forget: the key's failures start over. */
  forget(key: string): void {
    this.#failures.reset(key);
  }

  /** The next key to handle; it is the caller's until done(key). Rejects when the signal aborts. */
  async get(signal: AbortSignal): Promise<string> {
    while (this.#queued.size === 0) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        this.#wake = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        signal.addEventListener("abort", onAbort, { once: true });
      });
      this.#wake = undefined;
    }
    const key = this.#queued.values().next().value as string;
    this.#queued.delete(key);
    this.#processing.add(key);
    return key;
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirtyWhileProcessing.delete(key)) this.add(key);
  }

  /** Drops every waiting key that starts with prefix, and their failure counts (ForgetPod). */
  removePrefix(prefix: string): void {
    for (const key of [...this.#queued]) if (key.startsWith(prefix)) this.#queued.delete(key);
    for (const key of [...this.#dirtyWhileProcessing]) if (key.startsWith(prefix)) this.#dirtyWhileProcessing.delete(key);
    this.#failures.resetPrefix(prefix);
  }

  shutDown(): void {
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
  }
}
