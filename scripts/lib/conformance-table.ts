/**
 * scripts/conformance.sh's summary of a ginkgo JSON report: passed, failed and skipped specs per
 * area (the spec's file under test/e2e, e.g. common/node/pods.go), the totals, and each failed
 * spec with the first lines of its failure. Specs the filters left out (never attempted) are not
 * counted; a spec the framework skipped at run time (a missing feature, a provider) is.
 *
 *   bun scripts/lib/conformance-table.ts REPORT.json
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

const file = process.argv[2];
if (!file) {
  console.error("usage: conformance-table.ts REPORT.json");
  process.exit(2);
}
const suites = JSON.parse(readFileSync(file, "utf8")) as SuiteReport[];
const specs = suites.flatMap((s) => s.SpecReports ?? []).filter((s) => s.LeafNodeType === "It" && (s.NumAttempts ?? 0) > 0);

/** test/e2e/common/node/pods.go from a -trimpath or absolute location. */
function area(spec: SpecReport): string {
  const name = spec.LeafNodeLocation?.FileName ?? "";
  const at = name.indexOf("test/e2e/");
  return at >= 0 ? name.slice(at + "test/e2e/".length) : name || (spec.ContainerHierarchyTexts?.[0] ?? "?");
}
type Outcome = "passed" | "failed" | "skipped";
/** ginkgo's states folded into three: timedout, panicked, interrupted and aborted are failures. */
function outcome(state: string): Outcome {
  if (state === "passed") return "passed";
  if (state === "skipped" || state === "pending") return "skipped";
  return "failed";
}

const rows = new Map<string, Record<Outcome, number>>();
const total: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0 };
for (const spec of specs) {
  const row = rows.get(area(spec)) ?? { passed: 0, failed: 0, skipped: 0 };
  row[outcome(spec.State)]++;
  total[outcome(spec.State)]++;
  rows.set(area(spec), row);
}
const width = Math.max(4, ...[...rows.keys()].map((k) => k.length));
const line = (a: string, p: string | number, f: string | number, s: string | number) =>
  `${a.padEnd(width)}  ${String(p).padStart(6)}  ${String(f).padStart(6)}  ${String(s).padStart(7)}`;
console.log(line("area", "passed", "failed", "skipped"));
for (const [a, r] of [...rows].sort(([x], [y]) => x.localeCompare(y))) console.log(line(a, r.passed, r.failed, r.skipped));
console.log(line("total", total.passed, total.failed, total.skipped));

const failed = specs.filter((s) => outcome(s.State) === "failed");
if (failed.length > 0) {
  console.log(`\nfailed (${failed.length}):`);
  for (const s of failed) {
    const name = [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(" ");
    const message = (s.Failure?.Message ?? "").trim().split("\n").slice(0, 3).join(" | ").slice(0, 400);
    console.log(`- [${area(s)}] ${name} (${s.State})\n    ${message}`);
  }
}
