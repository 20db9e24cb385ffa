import type { ReadinessProbe, Clock } from "./types.ts";

export interface WaitReadyOptions {
  probe: ReadinessProbe;
  clock: Clock;
  timeoutMs: number;
  intervalMs: number;
  /** Aborts the wait: the caller stopped, or the process being probed exited. */
  signal: AbortSignal;
}

export type WaitReadyResult = { ready: true; attempts: number } | { ready: false; attempts: number; lastError: unknown };

/**
 * Calls `probe` every `intervalMs` until it answers or `timeoutMs` has passed. Each attempt gets
 * a signal that aborts at the deadline, so a hung call cannot outlive the wait.
 * Throws only when `signal` aborts.
 */
export async function waitReady(opts: WaitReadyOptions): Promise<WaitReadyResult> {
  const { probe, clock, timeoutMs, intervalMs, signal } = opts;
  const deadline = clock.now() + timeoutMs;
  const attemptCtl = new AbortController();
  const onAbort = () => attemptCtl.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  // Owned deadline timer: aborts an in-flight probe when time is up.
  const timerCtl = new AbortController();
  const deadlineTimer = clock.sleep(timeoutMs, timerCtl.signal).then(
    () => attemptCtl.abort(new Error("readiness deadline passed")),
    () => {},
  );
  let attempts = 0;
  let lastError: unknown;
  try {
    for (;;) {
      signal.throwIfAborted();
      attempts++;
      try {
        await probe(attemptCtl.signal);
        return { ready: true, attempts };
      } catch (err) {
        signal.throwIfAborted();
        lastError = err;
      }
      const left = deadline - clock.now();
      if (left <= 0) return { ready: false, attempts, lastError };
      await clock.sleep(Math.min(intervalMs, left), signal);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    timerCtl.abort();
    await deadlineTimer;
  }
}
