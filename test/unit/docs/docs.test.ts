// The docs check (scripts/check-docs.ts): README.md and docs/ carry no merge marker and no bunlet
// flag that --help does not know, and docs/flags.md is what the generator writes.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

test("README.md and docs/ hold no merge marker, no flag --help does not know, and a current docs/flags.md", () => {
  expect(checkDocs(root)).toEqual([]);
});

test("docs/flags.md is what scripts/gen-flag-docs.ts writes from the flag tables", () => {
  expect(readFileSync(flagsPage, "utf8")).toBe(flagReference());
});
