/**
 * The docs check: README.md and docs/ hold no merge marker, name no bunlet flag that `bunlet
 * --help` does not know, docs/flags.md is what scripts/gen-flag-docs.ts writes, and the
 * dependency graph in docs/architecture.md is the one the imports draw. CI runs it
 * through test/unit/docs/docs.test.ts; `bun scripts/check-docs.ts` prints the same findings.
 *
 * Which `--flags` are bunlet's: the first cell of a table whose first column is "flag", and the
 * arguments of a bunlet command line (`bunlet ...`, `dist/bunlet ...`, in a code block with its
 * `\` continuation lines, or in an inline code span); `bunlet crictl` takes crictl's flags and is
 * left alone. Elsewhere the docs quote other programs' flags on purpose (kubectl's `--previous`,
 * the bench scripts' `--rounds`, the kubelet's in comparisons), so prose is not read.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { allFlagDefs } from "../src/config/index.ts";
import { architecturePage, withGraph } from "./architecture-graph.ts";
import { analyzeArchitecture } from "./check-architecture.ts";
import { flagReference, flagsPage } from "./gen-flag-docs.ts";

/** Lines that are a git merge marker: a conflict left in the text. */
export function mergeMarkers(text: string): number[] {
  const lines: number[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (/^(<{7}|>{7})( |$)/.test(line) || /^={7}$/.test(line) || /^\|{7}( |$)/.test(line)) lines.push(i + 1);
  }
  return lines;
}

const flagToken = /(?<![\w-])--([a-z][a-z0-9-]*)/g;
/** A bunlet command, not `bunlet crictl`: what follows it are bunlet's own flags. */
const bunletCommand = /(?:^|[\s`(;&|])(?:[\w./-]*\/)?bunlet(?![\w.-])(?!\s+crictl\b)(.*)$/;

/** The flags a markdown text gives bunlet, with their lines. */
export function bunletFlags(text: string): { flag: string; line: number }[] {
  const found: { flag: string; line: number }[] = [];
  const add = (s: string, line: number) => {
    for (const m of s.matchAll(flagToken)) found.push({ flag: m[1]!, line });
  };
  let fence = false;
  let flagTable = false;
  let continued = false;
  for (const [i, line] of text.split("\n").entries()) {
    const n = i + 1;
    if (line.startsWith("```")) {
      fence = !fence;
      continued = false;
      continue;
    }
    if (fence) {
      const command: string | undefined = continued ? line : bunletCommand.exec(line)?.[1];
      if (command !== undefined) add(command.replace(/#.*$/, ""), n);
      continued = command !== undefined && /\\\s*$/.test(line);
      continue;
    }
    if (line.startsWith("|")) {
      const first = line.split("|")[1]?.trim() ?? "";
      if (/^flags?$/i.test(first)) flagTable = true;
      else if (flagTable && !/^-+$/.test(first)) add(first, n);
    } else flagTable = false;
    for (const span of line.matchAll(/`([^`]+)`/g)) {
      const command = bunletCommand.exec(span[1]!)?.[1];
      if (command !== undefined) add(command, n);
    }
  }
  return found;
}

function markdownFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return name.endsWith(".md") ? [path] : [];
    });
  return [join(root, "README.md"), ...walk(join(root, "docs"))];
}

export function checkDocs(root: string): string[] {
  const known = new Set(allFlagDefs.flatMap((d) => (d.short ? [d.name, d.short] : [d.name])));
  const problems: string[] = [];
  for (const path of markdownFiles(root)) {
    const text = readFileSync(path, "utf8");
    const rel = relative(root, path);
    for (const line of mergeMarkers(text)) problems.push(`${rel}:${line}: a merge conflict marker`);
    for (const { flag, line } of bunletFlags(text)) {
      if (!known.has(flag)) problems.push(`${rel}:${line}: --${flag} is not a flag bunlet --help knows`);
    }
  }
  if (readFileSync(flagsPage, "utf8") !== flagReference()) {
    problems.push("docs/flags.md is not what scripts/gen-flag-docs.ts writes: run `bun scripts/gen-flag-docs.ts`");
  }
  const page = readFileSync(architecturePage(root), "utf8");
  if (page !== withGraph(page, analyzeArchitecture(root).graph)) {
    problems.push("docs/architecture.md's dependency graph is not the imports' graph: run `bun scripts/check-architecture.ts --write-graph`");
  }
  return problems;
}

if (import.meta.main) {
  const problems = checkDocs(join(import.meta.dir, ".."));
  for (const p of problems) console.log(p);
  console.log(`${problems.length} problem(s)`);
  process.exit(problems.length === 0 ? 0 : 1);
}
