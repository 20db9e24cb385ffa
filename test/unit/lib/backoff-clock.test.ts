import { describe, expect, test } from "bun:test";
import { anySignal, Backoff, delay, isAbortError, jitter, runEvery } from "../../../src/lib/index.ts";
import { FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";

describe("Backoff (keyed, exponential)", () => {
  test("the delay starts at initialMs, doubles on every next() and stops at maxMs", () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { initialMs: 10_000, maxMs: 300_000 });
    expect(b.get("c")).toBe(0);
    const delays = Array.from({ length: 7 }, () => b.next("c"));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(b.get("c")).toBe(300_000);
    expect(b.get("other")).toBe(0);
  });

  test("in backoff while less than the delay passed since the event; expiresAt = event + delay", async () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { initialMs: 10_000, maxMs: 300_000 });
    const finishedAt = clock.now();
    b.next("c");
    expect(b.expiresAt("c")).toBe(finishedAt + 10_000);
    expect(b.isInBackOffSince("c", finishedAt)).toBe(true);
    expect(b.isInBackOffSinceUpdate("c")).toBe(true);
    await clock.advance(9_999);
    expect(b.isInBackOffSince("c", finishedAt)).toBe(true);
    await clock.advance(1);
    expect(b.isInBackOffSince("c", finishedAt)).toBe(false);
    expect(b.isInBackOffSinceUpdate("c")).toBe(false);
    expect(b.isInBackOffSince("unknown", finishedAt)).toBe(false);
    expect(b.expiresAt("unknown")).toBe(0);
  });

  test("a key untouched for resetAfterMs (default 2 x max) starts over", async () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { initialMs: 10_000, maxMs: 300_000 });
    b.next("c");
    b.next("c");
    await clock.advance(600_000);
    expect(b.get("c")).toBe(20_000);
    await clock.advance(1);
    expect(b.get("c")).toBe(0);
    expect(b.next("c")).toBe(10_000);
  });

  test("the reset window counts from the last next(), not from the event that led to it", async () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { initialMs: 10_000, maxMs: 300_000 });
    const exitedAt = clock.now();
    await clock.advance(300_000); // the caller waited out a backoff before going ahead
    b.next("c");
    await clock.advance(360_000); // 11 minutes after the event, 6 after next()
    expect(b.isInBackOffSince("c", clock.now())).toBe(true);
    expect(b.isInBackOffSince("c", exitedAt)).toBe(false); // the window itself runs from the event
    await clock.advance(240_001);
    expect(b.get("c")).toBe(0);
  });

  // flowcontrol backoff_test.go TestIsInBackOffSinceUpdate (1 s steps, 10 s max): the image-pull
  // path, where the window runs from the last next() and a key idle for 2 x max starts over.
  test.each([
    [0, false, 0],
    [1, false, 1],
    [2, true, 2],
    [3, false, 2],
    [4, true, 4],
    [6, true, 4],
    [7, false, 4],
    [8, true, 8],
    [14, true, 8],
    [15, false, 8],
    [16, true, 10],
    [24, true, 10],
    [25, false, 10],
    [26, true, 10],
    [34, true, 10],
    [35, false, 10],
    [56, false, 0],
    [57, false, 1],
  ])("isInBackOffSinceUpdate at tick %d s: %p (delay %d s while in backoff)", async (tick, inBackOff, value) => {
    const clock = new FakeClock(0);
    const b = new Backoff(clock, { initialMs: 1_000, maxMs: 10_000 });
    // Replays the upstream table up to this tick: next() runs at every tick not in backoff.
    const ticks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 56, 57];
    for (const t of ticks) {
      await clock.advance(t * 1000 - clock.now());
      const now = b.isInBackOffSinceUpdate("id");
      if (t === tick) {
        expect(now).toBe(inBackOff);
        if (inBackOff) expect(b.get("id")).toBe(value * 1000);
        return;
      }
      if (!now) b.next("id");
    }
  });

  test("reset, resetPrefix and gc forget keys", async () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { initialMs: 1_000, maxMs: 10_000, resetAfterMs: 5_000 });
    for (const key of ["pod1/a", "pod1/b", "pod2/a"]) b.next(key);
    b.reset("pod2/a");
    expect(b.size).toBe(2);
    b.resetPrefix("pod1/");
    expect(b.size).toBe(0);
    b.next("x");
    await clock.advance(5_001);
    expect(b.size).toBe(1);
    b.gc();
    expect(b.size).toBe(0);
  });

  test("jitter adds up to factor x the duration, from the injected random source", () => {
    expect(jitter(10_000, 0.5, () => 0)).toBe(10_000);
    expect(jitter(10_000, 0.5, () => 0.5)).toBe(12_500);
    expect(jitter(10_000, 0.5, () => 1)).toBe(15_000);
  });
});

describe("FakeClock", () => {
  test("timers fire in due order (then in creation order) only when time is advanced", async () => {
    const clock = new FakeClock(1_000);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push("c@30"));
    clock.setTimer(10, () => fired.push("a@10"));
    clock.setTimer(10, () => fired.push("b@10"));
    const cancelled = clock.setTimer(5, () => fired.push("never"));
    cancelled.cancel();
    expect(clock.pending).toBe(3);
    await clock.advance(9);
    expect(fired).toEqual([]);
    await clock.advance(21);
    expect(fired).toEqual(["a@10", "b@10", "c@30"]);
    expect(clock.now()).toBe(1_030);
  });

  test("a timer set by a firing timer within the same advance fires in it, at its own due time", async () => {
    const clock = new FakeClock(0);
    const seen: number[] = [];
    clock.setTimer(10, () => clock.setTimer(10, () => seen.push(clock.now())));
    await clock.advance(25);
    expect(seen).toEqual([20]);
    expect(clock.now()).toBe(25);
  });

  test("async code woken by a timer can chain further sleeps inside one advance", async () => {
    const clock = new FakeClock(0);
    const wakeups: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100);
        wakeups.push(clock.now());
      }
    })();
    await clock.advance(300);
    await loop;
    expect(wakeups).toEqual([100, 200, 300]);
  });

  test("whenTimer resolves with the due time once a timer of that delay waits, and ignores other timers", async () => {
    const clock = new FakeClock(0);
    let resolved: number | undefined;
    const waiting = clock.whenTimer(20_000).then((due) => (resolved = due));
    clock.setTimer(10_000, () => {}); // another delay: not the one waited for
    await flushMicrotasks();
    expect(resolved).toBeUndefined();
    await clock.advance(5);
    clock.setTimer(20_000, () => {});
    expect(await waiting).toBe(20_005);
    // One already waiting counts; a cancelled or fired one does not.
    expect(await clock.whenTimer(10_000)).toBe(10_000);
    await clock.advance(20_000);
    const ac = new AbortController();
    const late = clock.whenTimer(10_000, ac.signal);
    ac.abort(new Error("gave up"));
    await expect(late).rejects.toThrow("gave up");
  });

  test("sleep rejects with the signal's reason when aborted, and its timer is dropped", async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const sleeping = clock.sleep(1_000, ac.signal);
    ac.abort(new Error("shutdown"));
    await expect(sleeping).rejects.toThrow("shutdown");
    await clock.advance(0);
    expect(clock.pending).toBe(0);
  });

  test("delay returns false instead of throwing when aborted", async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const waiting = delay(clock, 50, ac.signal);
    ac.abort();
    expect(await waiting).toBe(false);
    const ok = delay(clock, 50);
    await clock.advance(50);
    expect(await ok).toBe(true);
  });

  test("runEvery runs at once, then every period, reports errors and stops on abort", async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const runs: number[] = [];
    const errors: unknown[] = [];
    const loop = runEvery(
      clock,
      () => 1_000,
      ac.signal,
      () => {
        runs.push(clock.now());
        if (runs.length === 2) throw new Error("tick failed");
      },
      (err) => errors.push(err),
    );
    await clock.advance(2_500);
    expect(runs).toEqual([0, 1_000, 2_000]);
    expect(errors).toHaveLength(1);
    ac.abort();
    await loop;
    await clock.advance(5_000);
    expect(runs).toHaveLength(3);
  });
});

describe("signals", () => {
  test("anySignal aborts when any input aborts and ignores undefined inputs", () => {
    const a = new AbortController();
    const b = new AbortController();
    const any = anySignal(a.signal, undefined, b.signal);
    expect(any.aborted).toBe(false);
    b.abort(new Error("b"));
    expect(any.aborted).toBe(true);
    expect((any.reason as Error).message).toBe("b");
  });

  test("isAbortError recognises abort and timeout errors, not ordinary ones", () => {
    const ac = new AbortController();
    ac.abort();
    expect(isAbortError(ac.signal.reason, ac.signal)).toBe(true);
    expect(isAbortError(new DOMException("t", "TimeoutError"))).toBe(true);
    expect(isAbortError(new Error("boom"))).toBe(false);
  });
});
