import { emptyPodStatus, type RuntimePodStatus } from "../container/index.ts";
/**
 * The pod cache (pkg/kubelet/container/cache.go): the latest runtime status of every pod with the
 * time it was observed. PLEGs write it; pod workers wait on getNewerThan so they never act on
 * status older than their last sync. A global timestamp (updateTime) says "everything is at least
 * this fresh", which releases waiters of pods that had no change.
 */

export interface CacheEntry {
  status: RuntimePodStatus;
  error: unknown;
  /** When the status was observed (ms). */
  modified: number;
  /** When a single-pod relist last found the pod unchanged (ms); 0 = never since it was set. */
  observed: number;
}

/** An unknown pod: empty status, never observed. */
function emptyEntry(uid: string): CacheEntry {
  return { status: emptyPodStatus(uid), error: undefined, modified: 0, observed: 0 };
}

interface Subscriber {
  minTime: number;
  resolve(entry: CacheEntry): void;
}

export class PodCache {
  #pods = new Map<string, CacheEntry>();
  #timestamp = 0;
  #subscribers = new Map<string, Set<Subscriber>>();
  #onWait?: (uid: string, minTime: number) => void;

  /**
   * Tells the owner of the cache (the PLEG) that a getNewerThan caller has to wait because
   * nothing cached is new enough, so it can fetch fresher status than its next scheduled write.
   */
  setWaitHook(hook: ((uid: string, minTime: number) => void) | undefined): void {
    this.#onWait = hook;
  }

  /** The cached entry, or an empty status for an unknown pod (as the kubelet does). */
  get(uid: string): CacheEntry {
    return this.#pods.get(uid) ?? emptyEntry(uid);
  }

  has(uid: string): boolean {
    return this.#pods.has(uid);
  }

  /**
   * Stores status observed at `timestamp`. Data older than what the cache holds is ignored (the
   * evented and generic PLEG race); returns whether the cache changed.
   */
  set(uid: string, status: RuntimePodStatus, error: unknown, timestamp: number): boolean {
    const existing = this.#pods.get(uid);
    if (existing && existing.modified > timestamp) return false;
    this.#pods.set(uid, { status, error, modified: timestamp, observed: 0 });
    this.#notify(uid);
    return true;
  }

  /**
   * Says the cached status of `uid` was still current at `timestamp` (a single-pod relist that
   * found nothing to change), which releases its waiters as a newer write would. Unknown pods are
   * left alone (cache.go SetObservedTime).
   */
  setObservedTime(uid: string, timestamp: number): void {
    const entry = this.#pods.get(uid);
    if (entry && timestamp > entry.observed) entry.observed = timestamp;
    this.#notify(uid);
  }

  delete(uid: string): void {
    this.#pods.delete(uid);
    this.#notify(uid);
  }

  /** Moves the global timestamp forward (never back) and wakes every satisfied waiter. */
  updateTime(timestamp: number): void {
    if (timestamp > this.#timestamp) this.#timestamp = timestamp;
    for (const uid of [...this.#subscribers.keys()]) this.#notify(uid);
  }

  get timestamp(): number {
    return this.#timestamp;
  }

  /**
   * Resolves with the pod's entry once it is newer than minTime, or the global timestamp is;
   * rejects with the signal's reason if it aborts first.
   */
  getNewerThan(uid: string, minTime: number, opts: { signal?: AbortSignal } = {}): Promise<CacheEntry> {
    const ready = this.#readyEntry(uid, minTime);
    if (ready) return Promise.resolve(ready);
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const sub: Subscriber = {
        minTime,
        resolve: (entry) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(entry);
        },
      };
      const onAbort = () => {
        this.#unsubscribe(uid, sub);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      let subs = this.#subscribers.get(uid);
      if (!subs) this.#subscribers.set(uid, (subs = new Set()));
      subs.add(sub);
      this.#onWait?.(uid, minTime);
    });
  }

  /** UIDs with cached status. */
  uids(): string[] {
    return [...this.#pods.keys()];
  }

  #readyEntry(uid: string, minTime: number): CacheEntry | undefined {
    const entry = this.#pods.get(uid);
    if (entry && (entry.modified > minTime || entry.observed > minTime)) return entry;
    if (this.#timestamp > minTime) return entry ?? emptyEntry(uid);
    return undefined;
  }

  #notify(uid: string): void {
    const subs = this.#subscribers.get(uid);
    if (!subs) return;
    for (const sub of [...subs]) {
      const entry = this.#readyEntry(uid, sub.minTime);
      if (entry) {
        subs.delete(sub);
        sub.resolve(entry);
      }
    }
    if (subs.size === 0) this.#subscribers.delete(uid);
  }

  #unsubscribe(uid: string, sub: Subscriber): void {
    const subs = this.#subscribers.get(uid);
    subs?.delete(sub);
    if (subs?.size === 0) this.#subscribers.delete(uid);
  }
}
