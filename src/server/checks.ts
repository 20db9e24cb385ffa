/**
 * The kubelet's syncloop health check (pkg/kubelet/server/server.go): unhealthy when the sync
 * loop has not started an iteration for max(2 × syncFrequency, 5m). Before the first iteration
 * it is healthy, as upstream. The sync loop owns the timestamp; the server only reads it.
 */
import type { Clock } from "../lib/index.ts";
import type { HealthCheck } from "./healthz.ts";

const minThresholdMs = 5 * 60_000;

export function syncLoopThresholdMs(syncFrequencyMs: number): number {
  return Math.max(2 * syncFrequencyMs, minThresholdMs);
}

export function syncLoopHealthCheck(opts: {
  clock: Clock;
  /** When the sync loop last entered an iteration (ms), or undefined before the first. */
  latestLoopEntryTime: () => number | undefined;
  syncFrequencyMs: number;
}): HealthCheck {
  const thresholdMs = syncLoopThresholdMs(opts.syncFrequencyMs);
  return {
    name: "syncloop",
    check() {
      const entered = opts.latestLoopEntryTime();
      if (entered === undefined) return { ok: true };
      const ageMs = opts.clock.now() - entered;
      if (ageMs <= thresholdMs) return { ok: true };
      return {
        ok: false,
        message: `sync loop took longer than expected: last iteration started ${Math.round(ageMs / 1000)}s ago (threshold ${thresholdMs / 1000}s)`,
      };
    },
  };
}
