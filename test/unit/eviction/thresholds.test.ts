import { describe, expect, test } from "bun:test";
import { hardThresholdsForAllocatable, parseThresholdConfig, thresholdQuantity, type ThresholdConfig } from "../../../src/eviction/thresholds.ts";

const MI = 1024n * 1024n;
const cfg = (c: Partial<ThresholdConfig>): ThresholdConfig => ({ evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {}, mergeDefaultEvictionSettings: false, ...c });

// helpers_test.go TestParseThresholdConfig, case by case.
describe("parseThresholdConfig", () => {
  test("no values: no thresholds", () => expect(parseThresholdConfig(cfg({}))).toEqual([]));

  test("enforceNodeAllocatable with pods: each hard memory.available threshold is also one on allocatableMemory.available", () => {
    const c = { evictionHard: { "memory.available": "150Mi" }, evictionSoft: { "memory.available": "300Mi" }, evictionSoftGracePeriod: { "memory.available": 30_000 }, evictionMinimumReclaim: { "memory.available": "10Mi" } };
    const hard = { value: { quantity: 150n * MI, text: "150Mi" }, gracePeriodMs: 0, hard: true, minReclaim: { quantity: 10n * MI } };
    expect(parseThresholdConfig(cfg({ ...c, enforceNodeAllocatable: ["pods"] }))).toEqual([
      { signal: "memory.available", ...hard },
      { signal: "memory.available", value: { quantity: 300n * MI, text: "300Mi" }, gracePeriodMs: 30_000, hard: false, minReclaim: { quantity: 10n * MI } },
      { signal: "allocatableMemory.available", ...hard },
    ]);
    expect(parseThresholdConfig(cfg({ ...c, enforceNodeAllocatable: ["none"] })).map((t) => t.signal)).toEqual(["memory.available", "memory.available"]);
  });

  test("allocatableMemory.available can be given itself", () => {
    expect(parseThresholdConfig(cfg({ evictionHard: { "allocatableMemory.available": "50Mi" } }))[0]?.signal).toBe("allocatableMemory.available");
  });

  test("all memory eviction values", () => {
    const got = parseThresholdConfig(
      cfg({ evictionHard: { "memory.available": "150Mi" }, evictionSoft: { "memory.available": "300Mi" }, evictionSoftGracePeriod: { "memory.available": 30_000 }, evictionMinimumReclaim: { "memory.available": "0" } }),
    );
    expect(got).toEqual([
      { signal: "memory.available", value: { quantity: 150n * MI, text: "150Mi" }, gracePeriodMs: 0, hard: true, minReclaim: { quantity: 0n } },
      { signal: "memory.available", value: { quantity: 300n * MI, text: "300Mi" }, gracePeriodMs: 30_000, hard: false, minReclaim: { quantity: 0n } },
    ]);
  });

  test("all memory eviction values in percentages (held exactly, in parts per million)", () => {
    const got = parseThresholdConfig(
      cfg({ evictionHard: { "memory.available": "10%" }, evictionSoft: { "memory.available": "30%" }, evictionSoftGracePeriod: { "memory.available": 30_000 }, evictionMinimumReclaim: { "memory.available": "5%" } }),
    );
    expect(got.map((t) => [t.value, t.minReclaim])).toEqual([
      [{ ppm: 100_000n }, { ppm: 50_000n }],
      [{ ppm: 300_000n }, { ppm: 50_000n }],
    ]);
  });

  test("disk eviction values", () => {
    const got = parseThresholdConfig(cfg({ evictionHard: { "imagefs.available": "150Mi", "nodefs.available": "100Mi" } }));
    expect(got.map((t) => [t.signal, t.value])).toEqual([
      ["imagefs.available", { quantity: 150n * MI, text: "150Mi" }],
      ["nodefs.available", { quantity: 100n * MI, text: "100Mi" }],
    ]);
  });

  test("inode and pid values", () => {
    const got = parseThresholdConfig(cfg({ evictionHard: { "imagefs.inodesFree": "150Mi", "nodefs.inodesFree": "7.5%", "pid.available": "1000" } }));
    expect(got.map((t) => t.value)).toEqual([{ quantity: 150n * MI, text: "150Mi" }, { ppm: 75_000n }, { quantity: 1000n, text: "1k" }]);
  });

  test("0% and 100% are ignored, as the kubelet ignores them", () => {
    expect(parseThresholdConfig(cfg({ evictionHard: { "memory.available": "0%", "nodefs.available": "100%" } }))).toEqual([]);
  });

  const errors: [string, Partial<ThresholdConfig>, string][] = [
    ["invalid-signal", { evictionHard: { "mem.available": "150Mi" } }, "unsupported eviction signal mem.available"],
    ["hard-signal-negative", { evictionHard: { "memory.available": "-150Mi" } }, "eviction threshold memory.available must be positive: -150Mi"],
    ["hard-signal-negative-percentage", { evictionHard: { "memory.available": "-15%" } }, "eviction percentage threshold memory.available must be >= 0%: -15%"],
    ["hard-signal-over-100-percent", { evictionHard: { "memory.available": "150%" } }, "eviction percentage threshold memory.available must be <= 100%: 150%"],
    ["soft-signal-negative", { evictionSoft: { "memory.available": "-150Mi" }, evictionSoftGracePeriod: { "memory.available": 30_000 } }, "eviction threshold memory.available must be positive: -150Mi"],
    ["soft-no-grace-period", { evictionSoft: { "memory.available": "150Mi" } }, "grace period must be specified for the soft eviction threshold memory.available"],
    ["grace-period-unknown-signal", { evictionSoftGracePeriod: { "mem.available": 30_000 } }, "unsupported eviction signal mem.available"],
    ["negative-reclaim", { evictionHard: { "memory.available": "150Mi" }, evictionMinimumReclaim: { "memory.available": "-300Mi" } }, "negative reclaim defined for eviction signal memory.available: -300Mi"],
    ["a signal bunlet does not observe", { evictionHard: { "containerfs.available": "10%" } }, "eviction signal containerfs.available is not supported by bunlet"],
  ];
  for (const [name, c, message] of errors) test(name, () => expect(() => parseThresholdConfig(cfg(c))).toThrow(message));
});

describe("the kubelet's defaults", () => {
  test("evictionHard not given: memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%", () => {
    const got = parseThresholdConfig(cfg({ evictionHard: undefined }));
    expect(Object.fromEntries(got.map((t) => [t.signal, t.value]))).toEqual({
      "memory.available": { quantity: 100n * MI, text: "100Mi" },
      "nodefs.available": { ppm: 100_000n },
      "nodefs.inodesFree": { ppm: 50_000n },
      "imagefs.available": { ppm: 150_000n },
      "imagefs.inodesFree": { ppm: 50_000n },
    });
  });
  test("evictionHard given in part replaces the defaults, unless mergeDefaultEvictionSettings", () => {
    expect(parseThresholdConfig(cfg({ evictionHard: { "memory.available": "1Gi" } })).map((t) => t.signal)).toEqual(["memory.available"]);
    expect(parseThresholdConfig(cfg({ evictionHard: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: true })).map((t) => t.signal).sort()).toEqual(
      ["imagefs.available", "imagefs.inodesFree", "memory.available", "nodefs.available", "nodefs.inodesFree"],
    );
  });
});

test("thresholdQuantity: a percentage of capacity, in integers", () => {
  expect(thresholdQuantity({ ppm: 100_000n }, 1000n)).toBe(100n);
  expect(thresholdQuantity({ ppm: 75_000n }, 999n)).toBe(74n);
  expect(thresholdQuantity({ quantity: 5n }, 1000n)).toBe(5n);
});

describe("hardThresholdsForAllocatable", () => {
  test("only hard thresholds; a quantity as it is, a percentage as Go's float32", () => {
    const thresholds = parseThresholdConfig(
      cfg({ evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%" }, evictionSoft: { "imagefs.available": "20%" }, evictionSoftGracePeriod: { "imagefs.available": 60_000 } }),
    );
    expect(hardThresholdsForAllocatable(thresholds)).toEqual([
      { signal: "memory.available", quantity: 100n * MI },
      { signal: "nodefs.available", percentage: Math.fround(0.1) },
    ]);
    expect(Math.fround(0.1)).not.toBe(0.1);
  });
});
