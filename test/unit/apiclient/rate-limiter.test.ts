import { describe, expect, test } from "bun:test";
import { restClientLimits } from "../../../src/apiclient/client.ts";
import { createRateLimiter, TokenBucket } from "../../../src/apiclient/rate-limiter.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

/** Starts n waits and returns how many of them have resolved so far. */
function startWaits(limiter: { wait(signal?: AbortSignal): Promise<void> }, n: number, signal?: AbortSignal) {
  let done = 0;
  const all = Array.from({ length: n }, () => limiter.wait(signal).then(() => void done++));
  return { done: () => done, all };
}

describe("client-go's token bucket rate limiter", () => {
  test("a full bucket lets `burst` requests through at once, then one every 1/qps seconds", async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucket(clock, 50, 100);
    const w = startWaits(limiter, 103);
    await clock.advance(0);
    expect(w.done()).toBe(100);
    await clock.advance(19);
    expect(w.done()).toBe(100);
    await clock.advance(1); // 20 ms = one token at 50 qps
    expect(w.done()).toBe(101);
    await clock.advance(40);
    expect(w.done()).toBe(103);
  });

  test("tokens refill at qps up to burst while idle", async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucket(clock, 5, 10);
    await Promise.all(startWaits(limiter, 10).all);
    expect(limiter.tokens).toBe(0);
    await clock.advance(1000);
    expect(limiter.tokens).toBe(5);
    await clock.advance(60_000);
    expect(limiter.tokens).toBe(10);
  });

  test("waiters go in arrival order: the bucket goes negative and later callers wait longer", async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucket(clock, 1, 1);
    const order: number[] = [];
    const waits = [0, 1, 2].map((i) => limiter.wait().then(() => order.push(i)));
    await clock.advance(0);
    expect(order).toEqual([0]);
    await clock.advance(1000);
    expect(order).toEqual([0, 1]);
    await clock.advance(1000);
    expect(order).toEqual([0, 1, 2]);
    await Promise.all(waits);
  });

  test("an aborted wait rejects with the signal's reason and gives its token back", async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucket(clock, 1, 1);
    await limiter.wait();
    const ctl = new AbortController();
    const waiting = limiter.wait(ctl.signal);
    expect(limiter.tokens).toBe(-1);
    ctl.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(limiter.tokens).toBe(0);
  });

  test("qps <= 0 turns limiting off (the kubelet's heartbeat client)", async () => {
    const clock = new FakeClock();
    const limiter = createRateLimiter(clock, -1, 0);
    const w = startWaits(limiter, 1000);
    await clock.advance(0);
    expect(w.done()).toBe(1000);
  });
});

describe("a rest.Config's QPS and Burst as client-go reads them", () => {
  test("0 is client-go's default (5 QPS, burst 10); set values stay; a negative QPS stays off", () => {
    expect(restClientLimits(0, 0)).toEqual({ qps: 5, burst: 10 });
    expect(restClientLimits(50, 100)).toEqual({ qps: 50, burst: 100 });
    expect(restClientLimits(20, 0)).toEqual({ qps: 20, burst: 10 });
    expect(restClientLimits(-1, 0)).toEqual({ qps: -1, burst: 10 });
  });
});
