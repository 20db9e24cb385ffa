// The docs check (scripts/check-docs.ts): README.md and docs/ carry no merge marker and no bunlet
// flag that --help does not know, docs/flags.md is what the generator writes, and the dependency
// graph in docs/architecture.md is the imports' graph.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { architecturePage, BEGIN, END, renderGraph, withGraph } from "../../../scripts/architecture-graph.ts";
import { analyzeArchitecture } from "../../../scripts/check-architecture.ts";
import { bunletFlags, checkDocs, mergeMarkers } from "../../../scripts/check-docs.ts";
import { flagReference, flagsPage } from "../../../scripts/gen-flag-docs.ts";

const root = join(import.meta.dir, "../../..");

describe("merge markers", () => {
  test.each([
    ["<<<<<<< HEAD", [1]],
    ["a\n=======\nb", [2]],
    [">>>>>>> house", [1]],
    ["||||||| merged common ancestors", [1]],
    // A rule of equals signs inside a line, or a longer one, is not a marker.
    ["a ======= b\n========", []],
    ["<<<<<<<< eight", []],
  ] as const)("%j", (text, lines) => {
    expect(mergeMarkers(text)).toEqual([...lines]);
  });
});

describe("the flags a text gives bunlet", () => {
  const flags = (text: string) => bunletFlags(text).map((f) => f.flag);

  test("a bunlet command line in a code block, with its continuation lines", () => {
    const text = ["```sh", "dist/bunlet --kubeconfig k \\", "  --client-ca-file ca.crt   # --not-this", "curl --fail x", "```"].join("\n");
    expect(flags(text)).toEqual(["kubeconfig", "client-ca-file"]);
  });

  test("a bunlet command in an inline code span; bunlet crictl and other programs are left alone", () => {
    expect(flags("run `bunlet --pod-manifest-path /m`, then `bunlet crictl logs --tail 5` and `kubectl logs --previous`")).toEqual([
      "pod-manifest-path",
    ]);
  });

  test("the first column of a flag table", () => {
    const text = ["| flag | field | meaning |", "|---|---|---|", "| `--max-pods` | maxPods | see `--other` |", "", "| `--x` | not a flag table |"].join("\n");
    expect(flags(text)).toEqual(["max-pods"]);
  });
});

test("README.md and docs/ hold no merge marker, no flag --help does not know, a current docs/flags.md and dependency graph", () => {
  expect(checkDocs(root)).toEqual([]);
}, 60_000);

test("docs/flags.md is what scripts/gen-flag-docs.ts writes from the flag tables", () => {
  expect(readFileSync(flagsPage, "utf8")).toBe(flagReference());
});

describe("the dependency graph", () => {
  const graph = new Map([
    ["main", new Set(["kubelet", "lib"])],
    ["kubelet", new Set(["cri", "lib"])],
    ["cri", new Set(["lib"])],
    ["api", new Set<string>()],
    ["lib", new Set<string>()],
  ]);

  test("one line per folder, by layer: a folder sits one above the highest it imports", () => {
    expect(renderGraph(graph).split("\n")).toEqual([
      "layer  folder   imports",
      "    0  api      –",
      "    0  lib      –",
      "    1  cri      lib",
      "    2  kubelet  cri lib",
      "    3  main.ts  kubelet lib",
    ]);
  });

  test("is written between the markers, and the rest of the page stays", () => {
    const page = `# A\n\nbefore\n${BEGIN}\nold graph\n${END}\nafter\n`;
    const written = withGraph(page, graph);
    expect(written.startsWith(`# A\n\nbefore\n${BEGIN}\n\`\`\`\nlayer`)).toBe(true);
    expect(written.endsWith(`\`\`\`\n${END}\nafter\n`)).toBe(true);
    expect(written).not.toContain("old graph");
    expect(withGraph(written, graph)).toBe(written);
  });

  test("docs/architecture.md holds the graph the imports draw today", () => {
    const page = readFileSync(architecturePage(root), "utf8");
    expect(page).toBe(withGraph(page, analyzeArchitecture(root).graph));
  }, 60_000);
});
