/**
 * The /healthz checks the kubelet core answers for (server.go syncLoopHealthCheck, the PLEG
 * check and the runtime check). The HTTP server owns the endpoint; these only read state.
 */
import type { Clock } from "../lib/index.ts";
import type { SyncLoopMonitor } from "./sync-loop.ts";

export interface HealthCheck {
  name: string;
  check(): { ok: boolean; message?: string };
}

/** The loop counts as stuck after max(2 × syncFrequency, 5 min) without entering an iteration. */
export const SYNC_LOOP_MIN_THRESHOLD_MS = 5 * 60_000;

export function syncLoopHealthCheck(monitor: SyncLoopMonitor, clock: Clock, syncFrequencyMs: number): HealthCheck {
  const threshold = Math.max(2 * syncFrequencyMs, SYNC_LOOP_MIN_THRESHOLD_MS);
  return {
    name: "syncloop",
    check() {
      // Zero means the loop has not started yet (still waiting for the runtime): not a failure.
      if (monitor.lastEntry === 0 || clock.now() - monitor.lastEntry <= threshold) return { ok: true };
      return {
        ok: false,
        message: `sync Loop took longer than expected: last iteration ${((clock.now() - monitor.lastEntry) / 1000).toFixed(0)}s ago, threshold ${threshold / 1000}s`,
      };
    },
  };
}

export function runtimeHealthCheck(runtimeError: () => string | undefined): HealthCheck {
  return {
    name: "runtime",
    check() {
      const message = runtimeError();
      return message === undefined ? { ok: true } : { ok: false, message };
    },
  };
}

export function plegHealthCheck(pleg: { healthy(): { ok: boolean; message?: string } }): HealthCheck {
  return { name: "pleg", check: () => pleg.healthy() };
}
