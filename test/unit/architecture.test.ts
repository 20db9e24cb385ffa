// The architecture check (scripts/check-architecture.ts) as part of the suite, so CI fails on an
// import that bypasses an index.ts, an import against the dependency direction, a package a
// folder may not use, or an unused export; and the check's own rules, on small trees.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkArchitecture } from "../../scripts/check-architecture.ts";

// Loading the TypeScript parser and reading every file takes a few seconds on a loaded machine.
test("imports go through each folder's index.ts, follow the dependency direction, and every export is used", () => {
  expect(checkArchitecture(join(import.meta.dir, "../.."))).toEqual([]);
}, 60_000);

describe("the check's rules", () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  /** A tree of the given files (src/, test/ and scripts/ always exist), checked. */
  const check = (files: Record<string, string>): string[] => {
    const root = mkdtempSync(join(tmpdir(), "bunlet-arch-"));
    roots.push(root);
    for (const d of ["src", "test", "scripts"]) mkdirSync(join(root, d));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return checkArchitecture(root);
  };

  test("a file directly under src/ other than main.ts is a problem, and gets no rule's freedom", () => {
    const problems = check({
      "src/main.ts": 'import { x } from "./util.ts";\nconsole.log(x);\n',
      "src/util.ts": 'import { run } from "./kubelet/index.ts";\nexport const x = run;\n',
      "src/kubelet/index.ts": "export const run = 1;\n",
    });
    expect(problems).toContain("src/util.ts: only main.ts lives directly under src/; move this file into a folder with an index.ts");
    expect(problems.some((p) => p.startsWith("src/util.ts:1: imports kubelet/; nothing but main.ts may"))).toBe(true);
  });

  test("a dynamic import() is read", () => {
    const problems = check({
      "src/lib/index.ts": 'export async function load() {\n  return await import("../cri/index.ts");\n}\n',
      "src/cri/index.ts": "export const c = 1;\n",
      "test/unit/lib/x.test.ts": 'import { load } from "../../../src/lib/index.ts";\nvoid load;\n',
    });
    expect(problems.some((p) => p.startsWith("src/lib/index.ts:2: lib imports cri, against the dependency direction"))).toBe(true);
  });

  test('an import("...").T type is read, and T counts as used', () => {
    const problems = check({
      "src/cri/index.ts": 'export type T = import("../runtime/index.ts").R;\n',
      "src/runtime/index.ts": "export const R = 1;\n",
      "test/unit/cri/x.test.ts": 'import type { T } from "../../../src/cri/index.ts";\nexport const t: T | undefined = undefined;\n',
    });
    expect(problems.some((p) => p.startsWith("src/cri/index.ts:1: cri imports runtime, against the dependency direction"))).toBe(true);
    expect(problems.some((p) => p.includes("exports R,"))).toBe(false);
  });

  test("a package only where the folder's allow-list names it; node: built-ins are free", () => {
    const problems = check({
      "src/lib/index.ts": 'import type { Pod } from "kubernetes-types/core/v1";\nimport { join } from "node:path";\nexport const f = (p: Pod) => join(String(p));\n',
      "src/api/index.ts": 'import type { Pod } from "kubernetes-types/core/v1";\nexport type P = Pod;\n',
      "src/stats/index.ts": 'import { Registry } from "@scope/pkg/sub";\nexport const r = Registry;\n',
      "test/unit/x.test.ts": 'import { f } from "../../src/lib/index.ts";\nimport { r } from "../../src/stats/index.ts";\nvoid f; void r;\n',
    });
    expect(problems).toContain("src/lib/index.ts:1: lib imports the package kubernetes-types (allowed: yaml)");
    expect(problems).toContain("src/stats/index.ts:1: stats imports the package @scope/pkg (allowed: none)");
    expect(problems.some((p) => p.startsWith("src/api/"))).toBe(false);
    expect(problems.some((p) => p.includes("node:path"))).toBe(false);
  });

  test("test helpers: a testing.ts door for tests only, and none in index.ts", () => {
    const problems = check({
      "src/lib/index.ts": "export const realThing = 1;\nexport class FakeThing {}\n",
      "src/lib/testing.ts": "export class FakeClock {}\n",
      "src/pleg/index.ts": 'import { FakeClock } from "../lib/testing.ts";\nimport { realThing } from "../lib/index.ts";\nexport const p = [FakeClock, realThing];\n',
      "test/unit/pleg/x.test.ts":
        'import { FakeClock } from "../../../src/lib/testing.ts";\nimport { FakeThing } from "../../../src/lib/index.ts";\nimport { p } from "../../../src/pleg/index.ts";\nvoid [FakeClock, FakeThing, p];\n',
    });
    expect(problems).toContain("src/pleg/index.ts:1: imports src/lib/testing.ts, the test helpers' door; production code uses src/lib/index.ts");
    expect(problems).toContain("src/lib/index.ts:2: src/lib/index.ts exports FakeThing, which only tests use; test helpers go through src/lib/testing.ts");
    expect(problems.some((p) => p.startsWith("test/"))).toBe(false);
  });
});
