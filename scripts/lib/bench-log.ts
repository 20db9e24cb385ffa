/**
 * A short digest of an agent's log for the benchmark report: warnings and errors grouped by
 * message, so a slow or failing start shows up next to the figures with the line that explains
 * it. Both bunlet and the upstream kubelet write klog text lines (`E1124 00:42:58.123456  123
 * file.go:45] "message" key="value"`).
 */
import { existsSync, readFileSync } from "node:fs";

const SHOWN = 8;
const KLOG = /^([WE])\d{4} \S+\s+\d+ [^\]]*\] ("(?:[^"\\]|\\.)*"|[^:]*)/;

/** W and E lines of a klog text log, grouped by message, most frequent first. */
export function summarizeLog(label: string, file: string): string[] {
  if (!existsSync(file)) return [];
  const counts = new Map<string, { n: number; example: string }>();
  let total = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = KLOG.exec(line);
    if (!m) continue;
    total++;
    const key = `${m[1]} ${m[2]}`;
    const entry = counts.get(key);
    if (entry) entry.n++;
    else counts.set(key, { n: 1, example: line.length > 400 ? `${line.slice(0, 400)}…` : line });
  }
  if (total === 0) return [`${label} log (${file}): no warnings or errors`];
  const groups = [...counts.values()].sort((a, b) => b.n - a.n);
  return [
    `${label} log (${file}): ${total} warning/error line(s) in ${groups.length} kind(s)${groups.length > SHOWN ? `, first ${SHOWN}` : ""}:`,
    ...groups.slice(0, SHOWN).map((g) => `  ${g.n}× ${g.example}`),
  ];
}
