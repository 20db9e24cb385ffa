/**
 * client-go's Reflector (tools/cache/reflector.go) for any collection path and selector: list,
 * hand the whole set to the store, then watch from the list's resourceVersion with bookmarks,
 * applying each event, and watch again when the server ends the watch. What goes wrong:
 * - the resourceVersion is too old (410 Expired/Gone) on a watch → relist from that version
 *   (the apiserver's cache serves it); on a list → list again at once from etcd (version "");
 * - the apiserver is unreachable or says 429 while watching → wait (backoff) and watch again;
 * - anything else, or a watch that ends within a second with no event → relist after the backoff.
 * Between two list-and-watch rounds it waits 0.8 s doubling to 30 s (+ up to 100 % jitter),
 * reset after 2 minutes without a failure, as client-go's reflector backoff does. The store
 * keeps its last contents through every failure: consumers act on what they last saw.
 */
import { delay, type Clock, type Logger } from "../lib/index.ts";
import type { ApiClient } from "./types.ts";
import { isResourceExpired, isTooManyRequests, isUnreachable } from "./errors.ts";
import type { KubeObject, ReflectorStore } from "./store.ts";

const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;
const BACKOFF_RESET_MS = 2 * 60_000;
/** client-go's minWatchTimeout: each watch asks for 5-10 minutes. */
const MIN_WATCH_TIMEOUT_S = 5 * 60;
/**
 * A watch with bookmarks hears from the apiserver at least once a minute (its watch cache sends
 * a bookmark every minute); three minutes of nothing is a dead link (one that dropped without a
 * reset), found long before the watch's own end. The kubelet finds it by its HTTP/2 connection's
 * health check (30 s of silence, then a ping with 15 s to answer).
 */
const WATCH_IDLE_TIMEOUT_MS = 3 * 60_000;
const PAGE_SIZE = 500;

export interface ReflectorOptions<T> {
  client: Pick<ApiClient, "list" | "watch">;
  /** The collection, e.g. /api/v1/pods */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  store: ReflectorStore<T>;
  clock: Clock;
  random: () => number;
  log: Logger;
  /** Names the watched type in logs, e.g. "*v1.Pod". */
  name?: string;
}

export interface Reflector {
  /** Lists and watches until the signal aborts; never throws for API failures. */
  run(signal: AbortSignal): Promise<void>;
  /** True once a list has reached the store. */
  hasSynced(): boolean;
  lastSyncResourceVersion(): string;
}

/** The reflector's backoff (wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)). */
export class ReflectorBackoff {
  #durationMs = BACKOFF_INITIAL_MS;
  #lastStart: number | undefined;
  constructor(
    private readonly clock: Clock,
    private readonly random: () => number,
  ) {}

  /** The next wait: jittered, growing, back to the start after 2 quiet minutes. */
  next(): number {
    const now = this.clock.now();
    if (this.#lastStart === undefined || now - this.#lastStart > BACKOFF_RESET_MS) this.#durationMs = BACKOFF_INITIAL_MS;
    this.#lastStart = now;
    const d = this.#durationMs;
    this.#durationMs = Math.min(this.#durationMs * 2, BACKOFF_MAX_MS);
    return d + this.random() * d;
  }
}

export function createReflector<T extends KubeObject>(opts: ReflectorOptions<T>): Reflector {
  const { client, path, store, clock, log } = opts;
  const name = opts.name ?? path;
  const selectors = { fieldSelector: opts.fieldSelector, labelSelector: opts.labelSelector };
  const backoff = new ReflectorBackoff(clock, opts.random);
  let lastRV = "";
  let rvUnavailable = false;
  let synced = false;

  const relistRV = () => (rvUnavailable ? "" : lastRV === "" ? "0" : lastRV);

  const listAll = async (resourceVersion: string, signal: AbortSignal): Promise<{ items: T[]; rv: string }> => {
    const items: T[] = [];
    let cont: string | undefined;
    for (;;) {
      const page = await client.list<T>(path, {
        ...selectors,
        // A continue token carries its own version. Only a consistent list ("") is paged: with a
        // limit, a list at an older resourceVersion is served from etcd at exactly that version
        // (stale after a 410), where without one the watch cache serves "not older than" it, as
        // client-go's reflector turns paging off for it.
        resourceVersion: cont ? undefined : resourceVersion,
        limit: resourceVersion === "" ? PAGE_SIZE : undefined,
        continue: cont,
        signal,
      });
      items.push(...page.items);
      cont = page.metadata?.continue || undefined;
      if (!cont) return { items, rv: page.metadata?.resourceVersion ?? "" };
    }
  };

  const list = async (signal: AbortSignal) => {
    let result: { items: T[]; rv: string };
    try {
      result = await listAll(relistRV(), signal);
    } catch (err) {
      if (!isResourceExpired(err) || signal.aborted) throw err;
      log.debug("List at the last resourceVersion expired; listing the latest", { reflector: name, resourceVersion: lastRV }, 2);
      rvUnavailable = true;
      result = await listAll(relistRV(), signal);
    }
    store.replace(result.items, result.rv);
    lastRV = result.rv;
    rvUnavailable = false;
    synced = true;
  };

  /** Watches until something needs a relist (returns) or the signal aborts. */
  const watchLoop = async (signal: AbortSignal) => {
    while (!signal.aborted) {
      const started = clock.now();
      let events = 0;
      try {
        const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_S * (1 + opts.random()));
        const stream = client.watch<T>(path, { ...selectors, resourceVersion: lastRV, allowWatchBookmarks: true, timeoutSeconds, idleTimeoutMs: WATCH_IDLE_TIMEOUT_MS, signal });
        for await (const e of stream) {
          events++;
          if (e.type === "ADDED") store.add(e.object);
          else if (e.type === "MODIFIED") store.update(e.object);
          else if (e.type === "DELETED") store.delete(e.object);
          const rv = e.object.metadata?.resourceVersion;
          if (rv) lastRV = rv;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (isResourceExpired(err)) {
          log.debug("Watch closed: the resourceVersion is too old; relisting", { reflector: name, resourceVersion: lastRV, err }, 2);
          return;
        }
        if (isUnreachable(err) || isTooManyRequests(err)) {
          const waitMs = backoff.next();
          log.warn("Watch failed; watching again after a backoff, keeping what was listed", { reflector: name, err, retryInMs: Math.round(waitMs) });
          if (!(await delay(clock, waitMs, signal))) return;
          continue;
        }
        log.warn("Watch failed; relisting after a backoff", { reflector: name, err });
        return;
      }
      if (events === 0 && clock.now() - started < 1000) {
        log.warn("Watch ended within a second with no event; relisting after a backoff", { reflector: name });
        return;
      }
    }
  };

  return {
    hasSynced: () => synced,
    lastSyncResourceVersion: () => lastRV,
    async run(signal) {
      while (!signal.aborted) {
        try {
          await list(signal);
          await watchLoop(signal);
        } catch (err) {
          if (signal.aborted) return;
          log.warn("List failed; listing again after a backoff, keeping what was listed before", { reflector: name, path, err });
        }
        if (!(await delay(clock, backoff.next(), signal))) return;
      }
    },
  };
}
