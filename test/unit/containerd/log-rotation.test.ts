import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderContainerdConfig } from "../../../src/containerd/config.ts";
import { rotateContainerdLog, shiftPlan } from "../../../src/containerd/log-rotation.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "bunlet-ctrdlog-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("shiftPlan", () => {
  const cases: [number, { remove: string; renames: [string, string][] }][] = [
    [1, { remove: "c.log.1", renames: [] }],
    [2, { remove: "c.log.1", renames: [] }],
    [3, { remove: "c.log.2", renames: [["c.log.1", "c.log.2"]] }],
    [4, { remove: "c.log.3", renames: [["c.log.2", "c.log.3"], ["c.log.1", "c.log.2"]] }],
  ];
  for (const [maxFiles, want] of cases) test(`maxFiles ${maxFiles}`, () => expect(shiftPlan("c.log", maxFiles)).toEqual(want));
});

describe("rotateContainerdLog (copytruncate)", () => {
  test("below the size nothing happens", () => {
    const log = join(dir, "containerd.log");
    writeFileSync(log, "small\n");
    expect(rotateContainerdLog(log, 100, 3)).toBe(false);
    expect(readdirSync(dir)).toEqual(["containerd.log"]);
  });

  test("at the size the content moves to .1, older copies shift, the oldest goes, the file is emptied in place", () => {
    const log = join(dir, "containerd.log");
    for (const round of ["one", "two", "three", "four"]) {
      writeFileSync(log, "", { flag: "a" });
      appendFileSync(log, `${round}\n`.repeat(20));
      expect(rotateContainerdLog(log, 50, 3)).toBe(true);
    }
    expect(readdirSync(dir).sort()).toEqual(["containerd.log", "containerd.log.1", "containerd.log.2"]);
    expect(readFileSync(log, "utf8")).toBe("");
    expect(readFileSync(`${log}.1`, "utf8")).toStartWith("four\n");
    expect(readFileSync(`${log}.2`, "utf8")).toStartWith("three\n");
  });

  test("maxFiles 1 only truncates", () => {
    const log = join(dir, "containerd.log");
    writeFileSync(log, "x".repeat(100));
    expect(rotateContainerdLog(log, 10, 1)).toBe(true);
    expect(readdirSync(dir)).toEqual(["containerd.log"]);
  });

  test("a missing log is not an error", () => expect(rotateContainerdLog(join(dir, "gone.log"), 10, 3)).toBe(false));
});

test("the log level lands in containerd's [debug] section", () => {
  expect(renderContainerdConfig({ rootDir: "/var/lib/bunlet", logLevel: "warn" })).toContain('[debug]\n  level = "warn"\n');
  expect(renderContainerdConfig({ rootDir: "/var/lib/bunlet" })).not.toContain("[debug]");
});
