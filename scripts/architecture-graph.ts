/**
 * The folder dependency graph of src/, as the imports draw it, written into docs/architecture.md
 * between two markers so that the page never shows a hand copy that drifted. The architecture
 * check computes the graph (`bun scripts/check-architecture.ts --graph` prints it,
 * `--write-graph` writes it); the docs check fails when the committed graph is not current.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const BEGIN = "<!-- BEGIN dependency graph: written by `bun scripts/check-architecture.ts --write-graph` -->";
export const END = "<!-- END dependency graph -->";

export const architecturePage = (root: string) => join(root, "docs", "architecture.md");

/**
 * One line per folder: its layer (0 = imports no other folder; else one more than the highest
 * layer it imports), its name and the folders it imports. Nothing points up a layer, so reading
 * from the top a folder only needs what is above it.
 */
export function renderGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  const layers = new Map<string, number>();
  const layerOf = (folder: string, seen: Set<string> = new Set()): number => {
    const known = layers.get(folder);
    if (known !== undefined) return known;
    // A cycle is the check's problem to report; here it only must not recurse for ever.
    if (seen.has(folder)) return 0;
    seen.add(folder);
    const deps = [...(graph.get(folder) ?? [])];
    const layer = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => layerOf(d, seen)));
    layers.set(folder, layer);
    return layer;
  };
  const name = (folder: string) => (folder === "main" ? "main.ts" : folder);
  const rows = [...graph.keys()]
    .map((folder) => ({ folder, layer: layerOf(folder) }))
    .sort((a, b) => a.layer - b.layer || name(a.folder).localeCompare(name(b.folder)));
  const width = Math.max(...rows.map((r) => name(r.folder).length)) + 2;
  const lines = rows.map(({ folder, layer }) => {
    const deps = [...(graph.get(folder) ?? [])].map(name).sort();
    return `${String(layer).padStart(5)}  ${name(folder).padEnd(width)}${deps.length === 0 ? "–" : deps.join(" ")}`.trimEnd();
  });
  return [`layer  ${"folder".padEnd(width)}imports`, ...lines].join("\n");
}

/** The page with the graph between the markers replaced; throws when the markers are missing. */
export function withGraph(page: string, graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no "${BEGIN}" ... "${END}" block`);
  const block = `${BEGIN}\n\`\`\`\n${renderGraph(graph)}\n\`\`\`\n`;
  return page.slice(0, start) + block + page.slice(end);
}

export function writeGraph(root: string, graph: ReadonlyMap<string, ReadonlySet<string>>): void {
  const path = architecturePage(root);
  writeFileSync(path, withGraph(readFileSync(path, "utf8"), graph));
}
