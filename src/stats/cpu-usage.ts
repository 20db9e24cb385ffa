/**
 * usageNanoCores from two samples of a cumulative CPU counter, as the kubelet's CRI stats provider
 * computes it (cri_stats_provider.go, getAndUpdateContainerUsageNanoCores): the previous sample is
 * kept per container (and one for the node), the rate is the core-nanoseconds used between the two
 * over the nanoseconds between them. A counter that went backwards means a restart: the sample
 * starts over and no rate is reported. Entries not refreshed for 10 min are dropped (the kubelet's
 * defaultCachePeriod), so containers that are gone do not pile up.
 */
import type { Clock } from "../lib/index.ts";

const CACHE_PERIOD_MS = 10 * 60_000;

export interface CpuSample {
  /** Unix ns when the counter was read; 0 (the runtime did not say) means "now" on the clock. */
  timestampNs: bigint;
  usageCoreNanoSeconds: bigint;
}

interface Entry {
  sample: CpuSample;
  usageNanoCores?: bigint;
  seenMs: number;
}

export class CpuUsageCache {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Records the sample of `id` and returns its usageNanoCores since the previous one, if known. */
  update(id: string, sample: CpuSample): bigint | undefined {
    const now = this.#clock.now();
    const current = sample.timestampNs > 0n ? sample : { ...sample, timestampNs: BigInt(Math.round(now)) * 1_000_000n };
    const cached = this.#entries.get(id);
    if (!cached || current.usageCoreNanoSeconds < cached.sample.usageCoreNanoSeconds) {
      this.#entries.set(id, { sample: current, seenMs: now });
      return undefined;
    }
    const interval = current.timestampNs - cached.sample.timestampNs;
    // The same sample again (two requests within the runtime's sampling period): the last rate stands.
    if (interval <= 0n) return cached.usageNanoCores;
    const usageNanoCores = ((current.usageCoreNanoSeconds - cached.sample.usageCoreNanoSeconds) * 1_000_000_000n) / interval;
    this.#entries.set(id, { sample: current, usageNanoCores, seenMs: now });
    return usageNanoCores;
  }

  /** Drops the entries not updated within the cache period. */
  prune(): void {
    const now = this.#clock.now();
    for (const [id, entry] of this.#entries) if (now - entry.seenMs > CACHE_PERIOD_MS) this.#entries.delete(id);
  }

  get size(): number {
    return this.#entries.size;
  }
}
