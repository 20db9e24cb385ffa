/**
 * The graceful shutdown's start and end, kept in <root-dir>/graceful_node_shutdown_state (the
 * kubelet's file and JSON: {"startTime": …, "endTime": …}, Go's zero time for "not yet") so the
 * next start after the reboot can show them in kubelet_graceful_shutdown_start_time_seconds and
 * kubelet_graceful_shutdown_end_time_seconds (seconds since the epoch, 0 when unknown).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";

const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

export interface ShutdownTimes {
  startMs?: number;
  endMs?: number;
}

interface Gauge {
  set(value: number): void;
}

export interface ShutdownStateMetrics {
  gracefulShutdownStartTime: Gauge;
  gracefulShutdownEndTime: Gauge;
}

const seconds = (ms: number | undefined) => (ms === undefined ? 0 : Math.floor(ms / 1000));
const parse = (t: unknown) => (typeof t === "string" && t !== GO_ZERO_TIME && Number.isFinite(Date.parse(t)) ? Date.parse(t) : undefined);

/** The times the file holds; none when it is missing. Throws when it cannot be read or parsed. */
export function loadShutdownState(path: string): ShutdownTimes {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  const v = JSON.parse(text) as { startTime?: unknown; endTime?: unknown };
  return { startMs: parse(v.startTime), endMs: parse(v.endTime) };
}

/** Written atomically (a temporary file renamed over it), as the kubelet's atomicWrite. */
export function storeShutdownState(path: string, times: ShutdownTimes): void {
  const iso = (ms: number | undefined) => (ms === undefined ? GO_ZERO_TIME : new Date(ms).toISOString());
  writeFileSync(`${path}.tmp`, JSON.stringify({ startTime: iso(times.startMs), endTime: iso(times.endMs) }), { mode: 0o644 });
  renameSync(`${path}.tmp`, path);
}

export function setShutdownMetrics(metrics: ShutdownStateMetrics, times: ShutdownTimes): void {
  metrics.gracefulShutdownStartTime.set(seconds(times.startMs));
  metrics.gracefulShutdownEndTime.set(seconds(times.endMs));
}
