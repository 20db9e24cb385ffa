/**
 * Fresh status for one pod on demand. In evented mode the cache is written with the events' own
 * times, so a pod worker that finished a sync (and waits for status newer than its end) would
 * otherwise wait for the next global cache update: its own container starts happened during the
 * sync and carry earlier times. Reading that one pod again answers it in milliseconds. Beyond the
 * kubelet, which waits for its 2 s global update; relisting mode keeps the kubelet's behaviour.
 */
import { runtimePodRef } from "../container/index.ts";
import { delay, type Clock, type Logger } from "../lib/index.ts";
import type { PodCache } from "./cache.ts";
import type { PodLister } from "./deps.ts";
import { preservedPodIPs } from "./pod-ips.ts";

export interface PodRefresherDeps {
  runtime: PodLister;
  cache: PodCache;
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** For a pod the cache cannot name (no status yet): a full relist finds it. */
  relist(): Promise<void>;
}

export class PodRefresher {
  readonly #deps: PodRefresherDeps;
  /** Per pod: the newest minTime asked for while a read was in flight. */
  #inFlight = new Map<string, { again: number }>();
  #running = new Set<Promise<void>>();

  constructor(deps: PodRefresherDeps) {
    this.#deps = deps;
  }

  /** Makes the cache hold status of `uid` observed after `minTime`. */
  refresh(uid: string, minTime: number): void {
    const running = this.#inFlight.get(uid);
    if (running) {
      running.again = Math.max(running.again, minTime);
      return;
    }
    const state = { again: -1 };
    this.#inFlight.set(uid, state);
    const run = this.#run(uid, minTime, state).finally(() => {
      this.#inFlight.delete(uid);
      this.#running.delete(run);
    });
    this.#running.add(run);
  }

  /** Resolves once every read in flight ended (after the signal aborted, promptly). */
  async idle(): Promise<void> {
    await Promise.all([...this.#running]);
  }

  async #run(uid: string, minTime: number, state: { again: number }): Promise<void> {
    for (let want = minTime; want >= 0 && !this.#deps.signal.aborted; ) {
      await this.#readOnce(uid, want);
      want = state.again;
      state.again = -1;
    }
  }

  async #readOnce(uid: string, minTime: number): Promise<void> {
    const { cache, clock, runtime, log, signal } = this.#deps;
    // The read must start after minTime to count as newer (clocks tick in whole milliseconds).
    if (clock.now() <= minTime && !(await delay(clock, minTime - clock.now() + 1, signal))) return;
    if (signal.aborted) return;
    const known = cache.has(uid) ? cache.get(uid).status : undefined;
    if (!known?.name) {
      await this.#deps.relist().catch((err) => log.error("relist for a waiting pod worker failed", { podUID: uid, err, next: "retrying at the next relist" }));
      return;
    }
    const timestamp = clock.now();
    try {
      const status = await runtime.getPodStatus(uid, known.name, known.namespace, { signal });
      status.ips = preservedPodIPs(cache, uid, status);
      cache.set(uid, status, undefined, timestamp);
    } catch (err) {
      if (signal.aborted) return;
      log.debug("could not read pod status for a waiting pod worker", {
        pod: runtimePodRef(known),
        err,
        next: "the worker waits for the next global cache update",
      });
    }
  }
}
