import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diskUsage, nodeMemory, nodeSwap, parseKeyValues, parseProcStat } from "../../../src/stats/host.ts";
import { metaTime, statsJson } from "../../../src/stats/types.ts";

describe("the node's numbers from /proc", () => {
  test("/proc/stat: busy CPU time in core-nanoseconds (USER_HZ 100) and the boot time", () => {
    const text = "cpu  100 20 30 9000 50 6 7 8 0 0\ncpu0 100 20 30 9000 50 6 7 8 0 0\nintr 1\nbtime 1763938000\nprocesses 5\n";
    // user+nice+system+irq+softirq+steal = 171 ticks of 10 ms.
    expect(parseProcStat(text)).toEqual({ usageCoreNanoSeconds: 1_710_000_000n, bootTime: 1763938000 });
    expect(parseProcStat("intr 1\n")).toBeUndefined();
  });

  test("memory: usage is what is not free, the working set leaves out inactive file pages", () => {
    const meminfo = parseKeyValues("MemTotal:       1000 kB\nMemFree:         200 kB\nInactive(file):  300 kB\nAnonPages:       100 kB\n");
    const vmstat = parseKeyValues("pgfault 12345\npgmajfault 67\n");
    expect(nodeMemory(meminfo, vmstat, Date.UTC(2026, 0, 1))).toEqual({
      time: "2026-01-01T00:00:00Z",
      usageBytes: 800n * 1024n,
      workingSetBytes: 500n * 1024n,
      availableBytes: 500n * 1024n,
      rssBytes: 100n * 1024n,
      pageFaults: 12345n,
      majorPageFaults: 67n,
    });
    expect(nodeMemory(new Map(), vmstat, 0)).toBeUndefined();
  });

  test("swap: used is SwapTotal − SwapFree, available SwapFree; zeros without swap", () => {
    const kv = (text: string) => parseKeyValues(text);
    expect(nodeSwap(kv("SwapTotal: 1024 kB\nSwapFree: 256 kB\n"), 0)).toEqual({ time: "1970-01-01T00:00:00Z", swapUsageBytes: 786_432n, swapAvailableBytes: 262_144n });
    expect(nodeSwap(kv("SwapTotal: 0 kB\nSwapFree: 0 kB\n"), 0)).toMatchObject({ swapUsageBytes: 0n });
    expect(nodeSwap(kv("MemTotal: 1 kB\n"), 0)).toBeUndefined();
  });
});

describe("the Summary's JSON", () => {
  test("times are whole seconds in UTC, and uint64 counters keep every digit", () => {
    expect(metaTime(Date.UTC(2026, 0, 1, 12, 0, 0, 999))).toBe("2026-01-01T12:00:00.999Z");
    expect(metaTime(Date.UTC(2026, 0, 1, 12, 0, 0))).toBe("2026-01-01T12:00:00Z");
    const json = statsJson({
      node: { nodeName: "n", startTime: "2026-01-01T00:00:00.5Z", cpu: { time: metaTime(Date.UTC(2026, 0, 1, 0, 0, 0, 999)), usageCoreNanoSeconds: 18_446_744_073_709_551_615n } },
      pods: [],
    });
    expect(json).toBe('{"node":{"nodeName":"n","startTime":"2026-01-01T00:00:00Z","cpu":{"time":"2026-01-01T00:00:00Z","usageCoreNanoSeconds":18446744073709551615}},"pods":[]}');
  });
});

describe("diskUsage: a du of a directory", () => {
  test("the 512-byte blocks and the inodes of the directory, its files, subdirectories and links, each counted once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bunlet-du-"));
    try {
      mkdirSync(join(dir, "sub"));
      writeFileSync(join(dir, "a"), "x".repeat(10_000));
      writeFileSync(join(dir, "sub", "b"), "y".repeat(70_000));
      symlinkSync("/nonexistent", join(dir, "link"));
      const paths = [dir, join(dir, "sub"), join(dir, "a"), join(dir, "sub", "b"), join(dir, "link")];
      const blocks = paths.reduce((sum, p) => sum + lstatSync(p).blocks, 0);
      expect(blocks).toBeGreaterThan(0);
      expect(await diskUsage(dir)).toEqual({ usedBytes: BigInt(blocks) * 512n, inodesUsed: 5n });
      expect(await diskUsage(join(dir, "sub", "b"))).toEqual({ usedBytes: BigInt(lstatSync(join(dir, "sub", "b")).blocks) * 512n, inodesUsed: 1n });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a path that does not exist has no usage", async () => {
    expect(await diskUsage(join(tmpdir(), "bunlet-du-absent", "nothing"))).toBeUndefined();
  });
});
