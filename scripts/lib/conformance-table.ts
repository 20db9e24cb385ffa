/**
 * scripts/conformance.sh's summary of ginkgo JSON reports. With one report: passed, failed and
 * skipped specs per area (the spec's file under test/e2e, e.g. common/node/pods.go), the totals,
 * and each failed spec with the first lines of its failure. With two (a bunlet node's, then the
 * upstream kubelet's, from `conformance.sh --kubelet`): both counts per area side by side, then
 * the failed specs sorted by whose they are: failed on bunlet only (bunlet's to fix), on both (the
 * machine's or the images'), on the kubelet only. Specs the filters left out (never attempted) are
 * not counted; a spec the framework skipped at run time (a missing feature, a provider) is.
 *
 *   bun scripts/lib/conformance-table.ts REPORT.json [KUBELET-REPORT.json]
 *
 * Exits 1 when, with two reports, a spec failed on bunlet and passed on the kubelet.
 */
import { readFileSync } from "node:fs";

interface SpecReport {
  LeafNodeType: string;
  LeafNodeText: string;
  ContainerHierarchyTexts?: string[] | null;
  LeafNodeLocation?: { FileName?: string };
  State: string;
  NumAttempts?: number;
  Failure?: { Message?: string };
}
interface SuiteReport {
  SpecReports?: SpecReport[] | null;
}
type Outcome = "passed" | "failed" | "skipped";
type Counts = Record<Outcome, number>;

/** The specs a report attempted. */
function readSpecs(file: string): SpecReport[] {
  const suites = JSON.parse(readFileSync(file, "utf8")) as SuiteReport[];
  return suites.flatMap((s) => s.SpecReports ?? []).filter((s) => s.LeafNodeType === "It" && (s.NumAttempts ?? 0) > 0);
}

/** test/e2e/common/node/pods.go from a -trimpath or absolute location. */
function area(spec: SpecReport): string {
  const name = spec.LeafNodeLocation?.FileName ?? "";
  const at = name.indexOf("test/e2e/");
  return at >= 0 ? name.slice(at + "test/e2e/".length) : name || (spec.ContainerHierarchyTexts?.[0] ?? "?");
}
const fullName = (s: SpecReport) => [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(" ");

/** ginkgo's states folded into three: timedout, panicked, interrupted and aborted are failures. */
function outcome(state: string): Outcome {
  if (state === "passed") return "passed";
  if (state === "skipped" || state === "pending") return "skipped";
  return "failed";
}

/** Counts per area, and the totals under "total". */
function countByArea(specs: SpecReport[]): Map<string, Counts> {
  const rows = new Map<string, Counts>([["total", { passed: 0, failed: 0, skipped: 0 }]]);
  for (const spec of specs) {
    const row = rows.get(area(spec)) ?? { passed: 0, failed: 0, skipped: 0 };
    row[outcome(spec.State)]++;
    rows.set(area(spec), row);
    (rows.get("total") as Counts)[outcome(spec.State)]++;
  }
  return rows;
}

function printFailures(title: string, specs: SpecReport[]): void {
  if (specs.length === 0) return;
  console.log(`\n${title} (${specs.length}):`);
  for (const s of specs) {
    const message = (s.Failure?.Message ?? "").trim().split("\n").slice(0, 3).join(" | ").slice(0, 400);
    console.log(`- [${area(s)}] ${fullName(s)} (${s.State})\n    ${message}`);
  }
}

/** Areas sorted, "total" last. */
function areaOrder(...maps: Map<string, Counts>[]): string[] {
  const names = new Set(maps.flatMap((m) => [...m.keys()]));
  names.delete("total");
  return [...[...names].sort(), "total"];
}

function printOne(specs: SpecReport[]): number {
  const rows = countByArea(specs);
  const areas = areaOrder(rows);
  const width = Math.max(4, ...areas.map((a) => a.length));
  const line = (a: string, p: string | number, f: string | number, s: string | number) =>
    `${a.padEnd(width)}  ${String(p).padStart(6)}  ${String(f).padStart(6)}  ${String(s).padStart(7)}`;
  console.log(line("area", "passed", "failed", "skipped"));
  for (const a of areas) {
    const r = rows.get(a) ?? { passed: 0, failed: 0, skipped: 0 };
    console.log(line(a, r.passed, r.failed, r.skipped));
  }
  printFailures("failed", specs.filter((s) => outcome(s.State) === "failed"));
  return 0;
}

function printCompared(bunlet: SpecReport[], kubelet: SpecReport[]): number {
  const [b, k] = [countByArea(bunlet), countByArea(kubelet)];
  const areas = areaOrder(b, k);
  const width = Math.max(4, ...areas.map((a) => a.length));
  const cells = (c: Counts | undefined) =>
    [c?.passed ?? 0, c?.failed ?? 0, c?.skipped ?? 0].map((n) => String(n).padStart(7)).join("");
  console.log(`${"".padEnd(width)}  ${"bunlet".padEnd(21)}  kubelet`);
  console.log(`${"area".padEnd(width)}  ${" passed failed skipped"}  ${" passed failed skipped"}`);
  for (const a of areas) console.log(`${a.padEnd(width)}  ${cells(b.get(a))}  ${cells(k.get(a))}`);

  const kubeletOutcome = new Map(kubelet.map((s) => [fullName(s), outcome(s.State)]));
  const bunletFailed = bunlet.filter((s) => outcome(s.State) === "failed");
  const bunletOnly = bunletFailed.filter((s) => kubeletOutcome.get(fullName(s)) === "passed");
  const both = bunletFailed.filter((s) => kubeletOutcome.get(fullName(s)) === "failed");
  const notOnKubelet = bunletFailed.filter((s) => !["passed", "failed"].includes(kubeletOutcome.get(fullName(s)) ?? ""));
  const bunletOutcome = new Map(bunlet.map((s) => [fullName(s), outcome(s.State)]));
  const kubeletOnly = kubelet.filter((s) => outcome(s.State) === "failed" && bunletOutcome.get(fullName(s)) !== "failed");
  console.log(`\nfailed on bunlet and passed on the kubelet: ${bunletOnly.length}`);
  printFailures("failed on bunlet only (bunlet's)", bunletOnly);
  printFailures("failed on both (the machine's or the images')", both);
  printFailures("failed on bunlet, not run or skipped on the kubelet", notOnKubelet);
  printFailures("failed on the kubelet only", kubeletOnly);
  return bunletOnly.length > 0 ? 1 : 0;
}

const [first, second] = process.argv.slice(2);
if (!first) {
  console.error("usage: conformance-table.ts REPORT.json [KUBELET-REPORT.json]");
  process.exit(2);
}
process.exit(second ? printCompared(readSpecs(first), readSpecs(second)) : printOne(readSpecs(first)));
