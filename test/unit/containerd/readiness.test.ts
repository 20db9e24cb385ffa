import { describe, expect, test } from "bun:test";
import { waitReady } from "../../../src/containerd/readiness.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

describe("waitReady", () => {
  test("polls every interval until the probe answers", async () => {
    const clock = new FakeClock();
    const calls: number[] = [];
    const start = clock.now();
    const done = waitReady({
      clock,
      timeoutMs: 30_000,
      intervalMs: 100,
      signal: new AbortController().signal,
      probe: async () => {
        calls.push(clock.now() - start);
        if (calls.length < 4) throw new Error("connection refused");
      },
    });
    await clock.advance(1000);
    expect(await done).toEqual({ ready: true, attempts: 4 });
    expect(calls).toEqual([0, 100, 200, 300]);
  });

  test("gives up at the deadline with the last error", async () => {
    const clock = new FakeClock();
    const done = waitReady({
      clock,
      timeoutMs: 1000,
      intervalMs: 100,
      signal: new AbortController().signal,
      probe: async () => {
        throw new Error("no such file");
      },
    });
    await clock.advance(1000);
    const result = await done;
    expect(result.ready).toBe(false);
    expect(result.attempts).toBe(11);
    expect(String((result as { lastError: unknown }).lastError)).toContain("no such file");
  });

  test("aborts a probe that hangs past the deadline", async () => {
    const clock = new FakeClock();
    let aborted = false;
    const done = waitReady({
      clock,
      timeoutMs: 500,
      intervalMs: 100,
      signal: new AbortController().signal,
      probe: (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          }),
        ),
    });
    await clock.advance(500);
    expect((await done).ready).toBe(false);
    expect(aborted).toBe(true);
  });

  test("the caller's signal ends the wait with its reason", async () => {
    const clock = new FakeClock();
    const ctl = new AbortController();
    const done = waitReady({
      clock,
      timeoutMs: 30_000,
      intervalMs: 100,
      signal: ctl.signal,
      probe: async () => {
        throw new Error("refused");
      },
    });
    await clock.advance(250);
    ctl.abort(new Error("containerd exited"));
    await expect(done).rejects.toThrow("containerd exited");
    expect(clock.pending).toBe(0);
  });
});
