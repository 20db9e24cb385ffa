import type { Clock } from "../clock.ts";

/**
 * A keyed exponential backoff, the kubelet's flowcontrol.Backoff: each key has a current delay that
 * starts at `initialMs`, doubles on every next() up to `maxMs`, and is forgotten once `resetAfterMs`
 * passed since its last next() (the kubelet resets crash-loop backoff 10 min after the restart it
 * last allowed: HasExpiredFunc plus backOff.GC in housekeeping).
 */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Idle time after which a key starts over; default 2 * maxMs. */
  resetAfterMs?: number;
}

interface Entry {
  delayMs: number;
  /** When next() last ran for this key: when the caller last went ahead (flowcontrol's lastUpdate). */
  lastUpdate: number;
}

export class Backoff {
  readonly #clock: Clock;
  readonly #opts: Required<BackoffOptions>;
  #entries = new Map<string, Entry>();

  constructor(clock: Clock, opts: BackoffOptions) {
    this.#clock = clock;
    this.#opts = { resetAfterMs: 2 * opts.maxMs, ...opts };
  }

  /** Current delay for key, 0 when it has none. */
  get(key: string): number {
    const e = this.#live(key, this.#clock.now());
    return e?.delayMs ?? 0;
  }

  /**
   * Grows the delay for key (or starts it at initialMs) and stamps it now, as flowcontrol's Next
   * does: the reset counts from when the caller went ahead, not from the event that led to it (a
   * crash-looping container's 5-minute wait does not count as 5 minutes of running).
   */
  next(key: string): number {
    const now = this.#clock.now();
    const e = this.#live(key, now);
    const delayMs = e ? Math.min(e.delayMs * 2, this.#opts.maxMs) : this.#opts.initialMs;
    this.#entries.set(key, { delayMs, lastUpdate: now });
    return delayMs;
  }

  /** True while now - eventTime is shorter than the key's current delay. */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const e = this.#live(key, this.#clock.now());
    if (!e) return false;
    return this.#clock.now() - eventTime < e.delayMs;
  }

  /** True while now is inside the window opened by the last next(). */
  isInBackOffSinceUpdate(key: string): boolean {
    const e = this.#live(key, this.#clock.now());
    if (!e) return false;
    return this.#clock.now() - e.lastUpdate < e.delayMs;
  }

  /** When the current window of key ends (0 if none). */
  expiresAt(key: string): number {
    const e = this.#live(key, this.#clock.now());
    return e ? e.lastUpdate + e.delayMs : 0;
  }

  reset(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every key whose prefix matches (e.g. all keys of a pod). */
  resetPrefix(prefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }

  /** Forgets expired keys (the kubelet's backOff.GC in housekeeping). */
  gc(): void {
    const now = this.#clock.now();
    for (const key of [...this.#entries.keys()]) this.#live(key, now);
  }

  get size(): number {
    return this.#entries.size;
  }

  #live(key: string, now: number): Entry | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (now - e.lastUpdate > this.#opts.resetAfterMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }
}

/** wait.Jitter: d + random * factor * d. The random source is injected. */
export function jitter(ms: number, factor: number, random: () => number): number {
  return ms + random() * factor * ms;
}
