import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../../src/lib/testing.ts";
import { CpuUsageCache } from "../../../src/stats/cpu-usage.ts";

const ns = (ms: number) => BigInt(ms) * 1_000_000n;

describe("usageNanoCores from two CPU samples", () => {
  test("the first sample has no rate; the second is the core time used over the time between", () => {
    const clock = new FakeClock();
    const cache = new CpuUsageCache(clock);
    const t0 = clock.now();
    expect(cache.update("c1", { timestampNs: ns(t0), usageCoreNanoSeconds: 5_000_000_000n })).toBeUndefined();
    // 1.5 core-seconds over 2 s: 0.75 cores.
    expect(cache.update("c1", { timestampNs: ns(t0 + 2000), usageCoreNanoSeconds: 6_500_000_000n })).toBe(750_000_000n);
  });

  test("a sample without a runtime timestamp is dated by the clock", async () => {
    const clock = new FakeClock();
    const cache = new CpuUsageCache(clock);
    cache.update("node", { timestampNs: 0n, usageCoreNanoSeconds: 1_000_000_000n });
    await clock.advance(4000);
    expect(cache.update("node", { timestampNs: 0n, usageCoreNanoSeconds: 9_000_000_000n })).toBe(2_000_000_000n);
  });

  test("the same sample again keeps the last rate", () => {
    const cache = new CpuUsageCache(new FakeClock());
    cache.update("c1", { timestampNs: ns(1000), usageCoreNanoSeconds: 0n });
    expect(cache.update("c1", { timestampNs: ns(2000), usageCoreNanoSeconds: 100_000_000n })).toBe(100_000_000n);
    expect(cache.update("c1", { timestampNs: ns(2000), usageCoreNanoSeconds: 100_000_000n })).toBe(100_000_000n);
  });

  test("a counter that went backwards (a restart) starts over without a rate", () => {
    const cache = new CpuUsageCache(new FakeClock());
    cache.update("c1", { timestampNs: ns(1000), usageCoreNanoSeconds: 900n });
    expect(cache.update("c1", { timestampNs: ns(2000), usageCoreNanoSeconds: 100n })).toBeUndefined();
    expect(cache.update("c1", { timestampNs: ns(3000), usageCoreNanoSeconds: 1_000_100n })).toBe(1_000_000n);
  });

  test("samples are per id", () => {
    const cache = new CpuUsageCache(new FakeClock());
    cache.update("a", { timestampNs: ns(1000), usageCoreNanoSeconds: 0n });
    expect(cache.update("b", { timestampNs: ns(2000), usageCoreNanoSeconds: 1_000_000_000n })).toBeUndefined();
  });

  test("entries not refreshed for 10 minutes are dropped", async () => {
    const clock = new FakeClock();
    const cache = new CpuUsageCache(clock);
    cache.update("gone", { timestampNs: 0n, usageCoreNanoSeconds: 1n });
    await clock.advance(5 * 60_000);
    cache.update("kept", { timestampNs: 0n, usageCoreNanoSeconds: 1n });
    await clock.advance(5 * 60_000 + 1);
    cache.prune();
    expect(cache.size).toBe(1);
    expect(cache.update("gone", { timestampNs: 0n, usageCoreNanoSeconds: 2n })).toBeUndefined();
  });
});
