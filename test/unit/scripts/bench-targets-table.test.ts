import { describe, expect, test } from "bun:test";
import { targetsTable } from "../../../scripts/lib/bench-targets-table.ts";

const meta = { idleSeconds: 600, pods: [100, 250] as [number, number], loadStart: "1.00", loadEnd: "2.00", when: "2026-11-26T17:30:00Z" };
const burst = (ms: number, cpuSeconds: number, rssMiB: number) => ({ ms, cpuSeconds, rssMiB, anonMiB: rssMiB / 2 });
const hold = (rssIdleMiB: number, idleCores: number) => ({ rssIdleMiB, anonIdleMiB: rssIdleMiB / 2, idleCores, relistMs: 2 });
const row = (table: string, metric: string) => table.split("\n").find((l) => l.startsWith(`| ${metric} |`))?.split(" | ").slice(1);

describe("the targets table", () => {
  test("each row has bunlet, the kubelet, their ratio, the target and whether it is met", () => {
    const table = targetsTable(
      { rss0: 70, staticSmall: { ...burst(10_000, 1.2, 120), ...hold(77, 0.02) } },
      { rss0: 60, staticSmall: { ...burst(16_000, 2.4, 130), ...hold(110, 0.04) } },
      meta,
    );
    expect(table).toContain("load average at start 1.00, at end 2.00");
    expect(row(table, "RSS with 100 static pods after the idle hold (MiB)")).toEqual(["77.0", "110.0", "0.70", "≤ 0.7", "yes |"]);
    expect(row(table, "RSS right after a 100-pod static burst (MiB)")).toEqual(["120.0", "130.0", "0.92", "≤ 0.8", "no |"]);
    expect(row(table, "100 static pods start-up (ms)")).toEqual(["10000", "16000", "0.63", "-", "- |"]);
    // The mean over the hold is shown beside the reading at its end, without a target of its own.
    expect(row(table, "RSS with 100 static pods, mean over the hold's second half (MiB)")).toEqual(["-", "-", "-", "-", "- |"]);
    const withMean = targetsTable({ staticSmall: { ...burst(10_000, 1.2, 120), ...hold(77, 0.02), rssMeanMiB: 80 } }, { staticSmall: { ...burst(16_000, 2.4, 130), ...hold(110, 0.04), rssMeanMiB: 100 } }, meta);
    expect(row(withMean, "RSS with 100 static pods, mean over the hold's second half (MiB)")).toEqual(["80.0", "100.0", "0.80", "-", "- |"]);
    // A phase that did not run is not met, and says why.
    expect(row(table, "250 static pods start-up (ms)")).toEqual(["-", "-", "-", "≤ 1", "no (not measured) |"]);
  });

  test("the growth rows compare each agent's per-pod cost at 250 with its cost at 100", () => {
    const b = { staticSmall: { ...burst(10_000, 1, 100), ...hold(100, 0.02) }, staticLarge: { ...burst(30_000, 2.5, 150), ...hold(150, 0.05) } };
    const k = { staticSmall: { ...burst(10_000, 1, 100), ...hold(100, 0.02) }, staticLarge: { ...burst(35_000, 2.5, 150), ...hold(150, 0.05) } };
    const table = targetsTable(b, k, meta);
    // bunlet 120 ms a pod against 100: 1.20, within the bound; the kubelet's 1.40.
    expect(row(table, "growth 100 → 250: static start-up per pod")).toEqual(["1.20", "1.40", "0.86", "bunlet's growth ≤ 1.2 or ≤ the kubelet's", "yes |"]);
    const worse = targetsTable({ ...b, staticLarge: { ...b.staticLarge, ms: 40_000 } }, k, meta);
    expect(row(worse, "growth 100 → 250: static start-up per pod")?.at(-1)).toBe("no |");
  });
});
