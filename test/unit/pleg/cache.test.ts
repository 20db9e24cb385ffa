// The pod cache (src/pleg/cache.ts): ordering of writes and the getNewerThan wait the pod workers use.
import { describe, expect, test } from "bun:test";
import { flushMicrotasks } from "../../../src/lib/testing.ts";
import { PodCache } from "../../../src/pleg/cache.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";

const status = (uid: string, name: string): RuntimePodStatus => ({ uid, name, namespace: "ns", ips: [], sandboxStatuses: [], containerStatuses: [] });

/** Tracks whether a promise settled, without awaiting it. */
function track<T>(p: Promise<T>) {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  p.then(
    (value) => Object.assign(state, { done: true, value }),
    (error) => Object.assign(state, { done: true, error }),
  );
  return state;
}

describe("PodCache ordering", () => {
  test("an unknown pod reads as an empty status with no error", () => {
    const cache = new PodCache();
    expect(cache.get("u")).toEqual({ status: { uid: "u", name: "", namespace: "", ips: [], sandboxStatuses: [], containerStatuses: [] }, error: undefined, modified: 0, observed: 0 });
    expect(cache.has("u")).toBe(false);
  });

  test("a write observed earlier than the cached one is ignored; the same or a later time replaces it", () => {
    const cache = new PodCache();
    expect(cache.set("u", status("u", "t10"), undefined, 10)).toBe(true);
    expect(cache.set("u", status("u", "t5"), undefined, 5)).toBe(false);
    expect(cache.get("u").status.name).toBe("t10");
    expect(cache.set("u", status("u", "t10b"), undefined, 10)).toBe(true);
    expect(cache.set("u", status("u", "t11"), new Error("inspect failed"), 11)).toBe(true);
    expect(cache.get("u")).toMatchObject({ modified: 11, status: { name: "t11" } });
    expect((cache.get("u").error as Error).message).toBe("inspect failed");
    expect(cache.uids()).toEqual(["u"]);
  });

  test("the global timestamp only moves forward", () => {
    const cache = new PodCache();
    cache.updateTime(100);
    cache.updateTime(50);
    expect(cache.timestamp).toBe(100);
  });
});

describe("PodCache.getNewerThan", () => {
  test("resolves at once when the entry is newer than minTime", async () => {
    const cache = new PodCache();
    cache.set("u", status("u", "a"), undefined, 10);
    expect((await cache.getNewerThan("u", 9)).status.name).toBe("a");
  });

  test("waits until a write newer than minTime arrives for that pod", async () => {
    const cache = new PodCache();
    cache.set("u", status("u", "old"), undefined, 10);
    const waiting = track(cache.getNewerThan("u", 10));
    cache.set("other", status("other", "x"), undefined, 20);
    cache.set("u", status("u", "same-time"), undefined, 10);
    await flushMicrotasks();
    expect(waiting.done).toBe(false);
    cache.set("u", status("u", "new"), undefined, 11);
    await flushMicrotasks();
    expect(waiting.value?.status.name).toBe("new");
  });

  test("a newer global timestamp releases waiters with what is cached (or an empty status)", async () => {
    const cache = new PodCache();
    cache.set("known", status("known", "cached"), undefined, 5);
    const known = track(cache.getNewerThan("known", 5));
    const unknown = track(cache.getNewerThan("unknown", 5));
    cache.updateTime(5);
    await flushMicrotasks();
    expect([known.done, unknown.done]).toEqual([false, false]);
    cache.updateTime(6);
    await flushMicrotasks();
    expect(known.value?.status.name).toBe("cached");
    expect(unknown.value).toMatchObject({ modified: 0, status: { uid: "unknown", name: "" } });
  });

  test("an observed time (a single-pod relist that found no change) releases the pod's waiters with what is cached", async () => {
    const cache = new PodCache();
    cache.set("u", status("u", "unchanged"), undefined, 5);
    const waiting = track(cache.getNewerThan("u", 8));
    const other = track(cache.getNewerThan("v", 8));
    cache.setObservedTime("u", 8);
    await flushMicrotasks();
    expect(waiting.done).toBe(false);
    cache.setObservedTime("u", 9);
    cache.setObservedTime("v", 9);
    await flushMicrotasks();
    expect(waiting.value).toMatchObject({ modified: 5, observed: 9, status: { name: "unchanged" } });
    // A pod the cache does not know is left alone: only a global timestamp releases it.
    expect(other.done).toBe(false);
    // A later write starts over: the next observation is its own.
    cache.set("u", status("u", "new"), undefined, 10);
    expect(cache.get("u").observed).toBe(0);
  });

  test("waiters with different minTimes are released one by one", async () => {
    const cache = new PodCache();
    const early = track(cache.getNewerThan("u", 1));
    const late = track(cache.getNewerThan("u", 10));
    cache.set("u", status("u", "t5"), undefined, 5);
    await flushMicrotasks();
    expect(early.value?.status.name).toBe("t5");
    expect(late.done).toBe(false);
    cache.set("u", status("u", "t11"), undefined, 11);
    await flushMicrotasks();
    expect(late.value?.status.name).toBe("t11");
  });

  test("after a delete, only a newer global timestamp releases a waiter, with an empty status", async () => {
    const cache = new PodCache();
    cache.set("u", status("u", "gone"), undefined, 5);
    const waiting = track(cache.getNewerThan("u", 5));
    cache.delete("u");
    await flushMicrotasks();
    expect(waiting.done).toBe(false);
    cache.updateTime(6);
    await flushMicrotasks();
    expect(waiting.value?.status.name).toBe("");
  });

  test("an aborted wait rejects with the signal's reason and stops listening", async () => {
    const cache = new PodCache();
    const ac = new AbortController();
    const waiting = cache.getNewerThan("u", 5, { signal: ac.signal });
    ac.abort(new Error("pod worker stopped"));
    await expect(waiting).rejects.toThrow("pod worker stopped");
    await expect(cache.getNewerThan("u", 5, { signal: ac.signal })).rejects.toThrow("pod worker stopped");
    // A later write must not trip over the withdrawn waiter.
    cache.set("u", status("u", "x"), undefined, 6);
    expect(cache.get("u").status.name).toBe("x");
  });
});
