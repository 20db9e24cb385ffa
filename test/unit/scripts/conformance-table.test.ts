import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// scripts/lib/conformance-table.ts: the table scripts/conformance.sh prints, alone and, for
// --kubelet, a bunlet run against the kubelet's with every failure sorted by whose it is.
const dir = mkdtempSync(join(tmpdir(), "conformance-table-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type State = "passed" | "failed" | "skipped" | "timedout";
function report(name: string, specs: [file: string, text: string, state: State][]): string {
  const path = join(dir, `${name}.json`);
  const SpecReports = [
    { LeafNodeType: "BeforeSuite", LeafNodeText: "", State: "passed", NumAttempts: 1 },
    ...specs.map(([file, text, state]) => ({
      LeafNodeType: "It",
      LeafNodeText: text,
      ContainerHierarchyTexts: ["[sig-node] Pods"],
      LeafNodeLocation: { FileName: `k8s.io/kubernetes/test/e2e/${file}` },
      State: state,
      NumAttempts: 1,
      Failure: state === "passed" ? undefined : { Message: `${text} broke\nsecond line` },
    })),
    // Left out by the filters: never attempted, never counted.
    { LeafNodeType: "It", LeafNodeText: "filtered", LeafNodeLocation: { FileName: "test/e2e/x.go" }, State: "skipped", NumAttempts: 0 },
  ];
  writeFileSync(path, JSON.stringify([{ SpecReports }]));
  return path;
}
function table(...reports: string[]) {
  const run = Bun.spawnSync([process.execPath, "scripts/lib/conformance-table.ts", ...reports], { cwd: join(import.meta.dir, "../../..") });
  return { code: run.exitCode, out: run.stdout.toString() };
}

const bunlet = report("bunlet", [
  ["common/node/pods.go", "a", "passed"],
  ["common/node/pods.go", "b", "failed"],
  ["common/node/pods.go", "c", "timedout"],
  ["common/storage/empty_dir.go", "d", "skipped"],
]);
const kubelet = report("kubelet", [
  ["common/node/pods.go", "a", "failed"],
  ["common/node/pods.go", "b", "passed"],
  ["common/node/pods.go", "c", "failed"],
  ["common/storage/empty_dir.go", "d", "skipped"],
]);

describe("conformance-table", () => {
  test("one report: counts per area and the total, timedout as failed, unattempted specs left out", () => {
    const { code, out } = table(bunlet);
    expect(code).toBe(0);
    expect(out).toMatch(/^common\/node\/pods\.go\s+1\s+2\s+0$/m);
    expect(out).toMatch(/^common\/storage\/empty_dir\.go\s+0\s+0\s+1$/m);
    expect(out).toMatch(/^total\s+1\s+2\s+1$/m);
    expect(out).toContain("failed (2):");
    expect(out).toContain("- [common/node/pods.go] [sig-node] Pods b (failed)\n    b broke | second line");
    expect(out).not.toContain("filtered");
  });

  test("two reports: both counts, and a spec failing on bunlet alone is bunlet's and fails the run", () => {
    const { code, out } = table(bunlet, kubelet);
    expect(code).toBe(1);
    expect(out).toMatch(/^total\s+1\s+2\s+1\s+1\s+2\s+1$/m);
    expect(out).toContain("failed on bunlet and passed on the kubelet: 1");
    expect(out).toMatch(/failed on bunlet only \(bunlet's\) \(1\):\n- \[common\/node\/pods\.go\] \[sig-node\] Pods b/);
    expect(out).toMatch(/failed on both \(the machine's or the images'\) \(1\):\n- \[common\/node\/pods\.go\] \[sig-node\] Pods c/);
    expect(out).toMatch(/failed on the kubelet only \(1\):\n- \[common\/node\/pods\.go\] \[sig-node\] Pods a/);
  });

  test("two reports that agree: exit 0", () => {
    expect(table(kubelet, kubelet).code).toBe(0);
  });
});
