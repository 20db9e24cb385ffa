/**
 * What every area of the wiring receives from the composition root (wire.ts): the clock, the
 * log, the metrics, the random source, the agent's lifetime and the pod startup SLI.
 */
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import type { PodStartupLatencyTracker } from "../status/index.ts";

export interface WireBase {
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** The random source in [0, 1), chosen by the composition root. */
  random: () => number;
  /** Aborted when the agent shuts down. */
  signal: AbortSignal;
  /** The pod startup SLI, fed by the apiserver source, the runtime and the status sync. */
  startupLatency: PodStartupLatencyTracker;
}
