// The AtomicWriter on a temp directory: the ..data symlink, the timestamped data dir, updates in
// one switch, key removal, modes, and the paths it refuses.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PayloadPathError, validatePayloadPath, writeAtomically, type Payload } from "../../../src/volumes/atomic-writer.ts";

const enc = new TextEncoder();
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

function payload(files: Record<string, string | [string, number]>): Payload {
  const p: Payload = new Map();
  for (const [k, v] of Object.entries(files)) {
    const [data, mode] = typeof v === "string" ? [v, 0o644] : v;
    p.set(k, { data: enc.encode(data), mode });
  }
  return p;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "atomic-writer-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const visible = () => readdirSync(dir).filter((n) => !n.startsWith(".."));
const dataDirs = () => readdirSync(dir).filter((n) => n.startsWith("..") && n !== "..data");

describe("writeAtomically", () => {
  test("the first write makes a timestamped data dir, ..data pointing at it, and a symlink per key", () => {
    expect(writeAtomically(dir, payload({ a: "1", "sub/b": "2" }), T0).written).toBe(true);
    const target = readlinkSync(join(dir, "..data"));
    expect(target).toMatch(/^\.\.2026_01_02_03_04_05\.\w+$/);
    expect(readlinkSync(join(dir, "a"))).toBe("..data/a");
    expect(readlinkSync(join(dir, "sub"))).toBe("..data/sub");
    expect(readFileSync(join(dir, "a"), "utf8")).toBe("1");
    expect(readFileSync(join(dir, "sub/b"), "utf8")).toBe("2");
    expect(statSync(join(dir, target)).mode & 0o777).toBe(0o755);
  });

  test("an update switches ..data to a new dir and removes the old one", () => {
    writeAtomically(dir, payload({ a: "1" }), T0);
    const first = readlinkSync(join(dir, "..data"));
    expect(writeAtomically(dir, payload({ a: "2" }), T0 + 1000).written).toBe(true);
    const second = readlinkSync(join(dir, "..data"));
    expect(second).not.toBe(first);
    expect(dataDirs()).toEqual([second]);
    expect(readFileSync(join(dir, "a"), "utf8")).toBe("2");
  });

  test("an unchanged payload touches nothing", () => {
    writeAtomically(dir, payload({ a: "1" }), T0);
    const first = readlinkSync(join(dir, "..data"));
    expect(writeAtomically(dir, payload({ a: "1" }), T0 + 1000).written).toBe(false);
    expect(readlinkSync(join(dir, "..data"))).toBe(first);
  });

  test("a mode change alone is a change", () => {
    writeAtomically(dir, payload({ a: ["1", 0o644] }), T0);
    expect(writeAtomically(dir, payload({ a: ["1", 0o400] }), T0).written).toBe(true);
    expect(statSync(join(dir, "a")).mode & 0o777).toBe(0o400);
  });

  test("a key that leaves the payload loses its visible symlink", () => {
    writeAtomically(dir, payload({ a: "1", b: "2", "d/c": "3" }), T0);
    writeAtomically(dir, payload({ a: "1" }), T0);
    expect(visible().sort()).toEqual(["a"]);
    expect(() => lstatSync(join(dir, "b"))).toThrow();
  });

  test("modes are exact whatever the umask: 0400, 0600, 0777", () => {
    writeAtomically(dir, payload({ r: ["x", 0o400], w: ["x", 0o600], x: ["x", 0o777] }), T0);
    expect(statSync(join(dir, "r")).mode & 0o777).toBe(0o400);
    expect(statSync(join(dir, "w")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "x")).mode & 0o777).toBe(0o777);
  });

  test("an empty payload leaves ..data pointing at an empty dir", () => {
    writeAtomically(dir, payload({ a: "1" }), T0);
    writeAtomically(dir, new Map(), T0);
    expect(visible()).toEqual([]);
    expect(readdirSync(join(dir, "..data"))).toEqual([]);
  });

  test("a bad path is refused before anything is written", () => {
    expect(() => writeAtomically(dir, payload({ ok: "1", "../escape": "2" }), T0)).toThrow(PayloadPathError);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("validatePayloadPath", () => {
  const cases: [string, string | undefined][] = [
    ["key", undefined],
    ["dir/key", undefined],
    ["..key", "invalid path: must not start with '..': ..key"],
    ["../x", "invalid path: must not contain '..': ../x"],
    ["a/../b", "invalid path: must not contain '..': a/../b"],
    ["/abs", "invalid path: must be relative path: /abs"],
    ["x".repeat(256), "invalid path: filenames must be less than or equal to 255 characters"],
    ["a/".repeat(2049), "invalid path: must be less than or equal to 4096 characters"],
  ];
  for (const [path, message] of cases) {
    test(`${path.slice(0, 20)} → ${message ?? "ok"}`, () => {
      if (message === undefined) expect(() => validatePayloadPath(path)).not.toThrow();
      else expect(() => validatePayloadPath(path)).toThrow(message);
    });
  }
});
