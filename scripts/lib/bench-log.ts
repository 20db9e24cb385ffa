/**
 * A short digest of bunlet's log for the benchmark report: warnings and errors grouped by message,
 * so a slow or failing start shows up next to the figures with the line that explains it.
 */
import { existsSync, readFileSync } from "node:fs";

const SHOWN = 8;

/** `level=warn|error` lines of a text-format log, grouped by msg, most frequent first. */
export function summarizeLog(file: string): string[] {
  if (!existsSync(file)) return [];
  const counts = new Map<string, { n: number; example: string }>();
  let total = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const level = /\blevel=(warn|error)\b/.exec(line)?.[1];
    if (!level) continue;
    total++;
    const msg = /\bmsg=("(?:[^"\\]|\\.)*"|\S+)/.exec(line)?.[1] ?? line;
    const key = `${level} ${msg}`;
    const entry = counts.get(key);
    if (entry) entry.n++;
    else counts.set(key, { n: 1, example: line.length > 400 ? `${line.slice(0, 400)}…` : line });
  }
  if (total === 0) return [`bunlet log (${file}): no warnings or errors`];
  const groups = [...counts.values()].sort((a, b) => b.n - a.n);
  return [
    `bunlet log (${file}): ${total} warning/error line(s) in ${groups.length} kind(s)${groups.length > SHOWN ? `, first ${SHOWN}` : ""}:`,
    ...groups.slice(0, SHOWN).map((g) => `  ${g.n}× ${g.example}`),
  ];
}
