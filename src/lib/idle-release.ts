/**
 * Gives memory back once the work goes quiet. A burst of pod starts leaves the JS heap (and the
 * allocator under it) sized for the garbage the burst made, not for what stays live: at 100 idle
 * pods bunlet held ~70 MiB of anonymous memory for ~20 MB of live objects, and JavaScriptCore's own
 * collections give little of it back. One full collection followed by a shrink of the heap and the
 * JIT's code, once the work has been quiet for a while, returns most of it (docs/lean.md).
 *
 * Once, not periodically: after a release nothing happens until the next activity, and the next
 * release waits for that activity to go quiet again. A release costs a few tens of ms of CPU, and
 * the JIT compiles again what runs next, so it must not fall inside a burst.
 *
 * At rest, between releases, a full collection every `collectMs`: the idle agent's periodic work
 * (relists, housekeeping, stats) makes garbage that outlives JavaScriptCore's young-generation
 * collections, and the heap grew by ~20 MiB over two minutes at 100 idle pods before the
 * collector's own full collection came (docs/lean.md). A full collection of the idle heap takes
 * ~10 ms and keeps the compiled code.
 *
 * Inside a burst, a full collection every `burstCollectMs` of continuing activity: the burst's
 * garbage that survives the young-generation collections otherwise grows the heap until the
 * collector's own full collection, and a 100-pod burst on containerd ended 5-10 MiB higher without
 * them, at the same CPU (docs/lean.md). A collection, not a release: a shrink drops the JIT's
 * code, which the rest of the burst would compile again. The next one waits longer when this one
 * was slow, so that they take at most `burstCollectShare` of the burst's time: on a slow machine
 * a burst lasts longer and each collection of its larger heap costs more, and a fixed 3 s made
 * their CPU grow with the square of the pods (docs/lean.md, "The burst's collections").
 */
import type { Clock, Timer } from "./clock.ts";
import type { Logger } from "./log.ts";

export interface IdleReleaseOptions {
  clock: Clock;
  log: Logger;
  /** How long without activity counts as quiet. */
  quietMs: number;
  /** Gives the memory back (releaseFreeMemory in the agent; a spy in tests). */
  release: () => void;
  /** At rest after a release, how often `collect` runs (0: never). */
  collectMs: number;
  /** A full collection; returns the milliseconds it took (collectGarbage in the agent; a spy in tests). */
  collect: () => number;
  /** Within a burst, how often `collect` runs while the activity continues (0: never). */
  burstCollectMs: number;
  /** Within a burst, the largest share of the time the collections may take: the next one waits at least took / share. */
  burstCollectShare: number;
  /** The process's resident set in bytes, for the log line. */
  rss: () => number;
}

export class IdleRelease {
  readonly #opts: IdleReleaseOptions;
  #lastActivity = 0;
  /** Activity seen since the last release: only then is there garbage worth a release. */
  #pending = false;
  #timer: Timer | undefined;
  /** The next collection at rest; only between a release and the next activity. */
  #collectTimer: Timer | undefined;
  #stopped = false;
  /** When the burst's next collection is due (clock ms); set by a burst's first activity. */
  #burstCollectAt = 0;

  constructor(opts: IdleReleaseOptions) {
    this.#opts = opts;
  }

  /** Work happened (a pod config change, a container event): the quiet time starts again. */
  activity(): void {
    if (this.#stopped) return;
    const { clock, burstCollectMs, burstCollectShare, collect } = this.#opts;
    const now = clock.now();
    if (!this.#pending) this.#burstCollectAt = now + burstCollectMs;
    else if (burstCollectMs > 0 && now >= this.#burstCollectAt) {
      const took = collect();
      this.#burstCollectAt = now + Math.max(burstCollectMs, took / burstCollectShare);
    }
    this.#lastActivity = now;
    this.#pending = true;
    this.#collectTimer?.cancel();
    this.#collectTimer = undefined;
    // One timer for the whole burst: when it fires early it waits for the rest of the quiet time.
    this.#timer ??= clock.setTimer(this.#opts.quietMs, () => this.#check());
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#collectTimer?.cancel();
    this.#collectTimer = undefined;
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#stopped || !this.#pending) return;
    const { clock, log, quietMs, release, rss } = this.#opts;
    const left = this.#lastActivity + quietMs - clock.now();
    if (left > 0) {
      this.#timer = clock.setTimer(left, () => this.#check());
      return;
    }
    this.#pending = false;
    const before = rss();
    const t0 = clock.now();
    release();
    const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
    log.debug("Released memory after the work went quiet", { quietMs, rssBeforeMiB: mib(before), rssAfterMiB: mib(rss()), tookMs: clock.now() - t0 }, 2);
    this.#scheduleCollect();
  }

  #scheduleCollect(): void {
    const { clock, collectMs, collect } = this.#opts;
    if (collectMs <= 0) return;
    this.#collectTimer = clock.setTimer(collectMs, () => {
      this.#collectTimer = undefined;
      collect();
      this.#scheduleCollect();
    });
  }
}

/** A full collection: the garbage that outlived the young generation's collections goes. Returns the milliseconds it took. */
export function collectGarbage(): number {
  const t0 = performance.now();
  Bun.gc(true);
  return performance.now() - t0;
}

/** A full collection, then the heap's and the JIT's free memory returned to the system. */
export function releaseFreeMemory(): void {
  collectGarbage();
  Bun.shrink();
}
