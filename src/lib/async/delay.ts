import type { Clock } from "../clock.ts";

/** Sleeps on the clock; returns false (instead of throwing) when the signal aborted. */
export async function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch (err) {
    if (signal?.aborted) return false;
    throw err;
  }
}

/** Runs fn every periodMs (the first run at once) until the signal aborts; errors go to onError. */
export async function runEvery(
  clock: Clock,
  periodMs: () => number,
  signal: AbortSignal,
  fn: () => Promise<void> | void,
  onError: (err: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await fn();
    } catch (err) {
      onError(err);
    }
    if (!(await delay(clock, periodMs(), signal))) return;
  }
}

/** An AbortSignal that aborts when any of the given signals does. */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}

/** True for the errors an aborted signal produces, whatever the library that threw them. */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && (err === signal.reason || err instanceof DOMException)) return true;
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
