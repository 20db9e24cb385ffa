// The subPath walk against a temporary directory with planted symlinks, `..` and a symlink
// swapped in between the resolution and the walk (CVE-2017-1002101, CVE-2021-25741).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { doSafeMakeDir, doSafeOpen, findExistingPrefix, openAt, pathWithinBase, safeMakeDir, SubPathError } from "../../../src/subpath/safe-open.ts";

let dir = "";
let volume = "";
let outside = "";

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "bunlet-safe-open-")));
  volume = join(dir, "volume");
  outside = join(dir, "host");
  mkdirSync(join(volume, "a", "b"), { recursive: true });
  writeFileSync(join(volume, "a", "b", "file"), "in volume");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret"), "host");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What the descriptor holds, as the kernel names it. */
function opened(fd: number): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } finally {
    closeSync(fd);
  }
}

describe("pathWithinBase", () => {
  test.each([
    ["/v", "/v", true],
    ["/v/a", "/v", true],
    ["/v/a/../b", "/v", true],
    ["/v/..a", "/v", true],
    ["/v/../x", "/v", false],
    ["/vx", "/v", false],
    ["/", "/v", false],
  ])("%s within %s: %s", (full, base, within) => {
    expect(pathWithinBase(full, base)).toBe(within);
  });
});

describe("doSafeOpen", () => {
  test("opens a directory, a file and the volume itself", () => {
    expect(opened(doSafeOpen(join(volume, "a", "b"), volume))).toBe(join(volume, "a", "b"));
    expect(opened(doSafeOpen(join(volume, "a", "b", "file"), volume))).toBe(join(volume, "a", "b", "file"));
    expect(opened(doSafeOpen(volume, volume))).toBe(volume);
  });

  test("a symlink as the last component is refused, not followed", () => {
    symlinkSync(outside, join(volume, "escape"));
    expect(() => doSafeOpen(join(volume, "escape"), volume)).toThrow(`unexpected symlink found ${join(volume, "escape")}`);
  });

  test("a symlink in the middle is refused, even one that stays inside the volume", () => {
    symlinkSync("a", join(volume, "alias"));
    expect(() => doSafeOpen(join(volume, "alias", "b"), volume)).toThrow(`unexpected symlink found ${join(volume, "alias")}`);
  });

  test("a path that leaves the base with .. is refused before anything is opened", () => {
    expect(() => doSafeOpen(join(volume, "..", "host", "secret"), volume)).toThrow(`path ${join(outside, "secret")} is outside of allowed base ${volume}`);
  });

  test("a directory swapped for a symlink after the path was resolved is refused (the CVE-2021-25741 race)", () => {
    // What prepareSafeSubpath resolved and checked: inside the volume.
    const resolved = realpathSync(join(volume, "a", "b"));
    expect(pathWithinBase(resolved, volume)).toBe(true);
    // The container swaps `a` for a symlink to the host between the check and the open.
    renameSync(join(volume, "a"), join(volume, "a-old"));
    mkdirSync(join(outside, "b"));
    symlinkSync(outside, join(volume, "a"));
    expect(() => doSafeOpen(resolved, volume)).toThrow(`unexpected symlink found ${join(volume, "a")}`);
  });

  test("the base itself may not be a symlink", () => {
    symlinkSync(volume, join(dir, "volume-link"));
    expect(() => doSafeOpen(join(dir, "volume-link", "a"), join(dir, "volume-link"))).toThrow(SubPathError);
  });
});

describe("openAt", () => {
  test.each(["", ".", "..", "a/b"])("refuses %p as a component", (name) => {
    expect(() => openAt(0, name, 0)).toThrow("invalid path component");
  });
});

describe("findExistingPrefix", () => {
  test("the existing part and what is left to create", () => {
    expect(findExistingPrefix(volume, join(volume, "a", "x", "y"))).toEqual({ existing: join(volume, "a"), toCreate: ["x", "y"] });
    expect(findExistingPrefix(volume, join(volume, "a", "b"))).toEqual({ existing: join(volume, "a", "b"), toCreate: [] });
  });
});

describe("safeMakeDir", () => {
  test("creates the missing directories with exactly the given mode, whatever the umask", () => {
    const old = process.umask(0o077);
    try {
      safeMakeDir("a/new/deeper", volume, 0o3777);
    } finally {
      process.umask(old);
    }
    expect(statSync(join(volume, "a", "new")).mode & 0o7777).toBe(0o3777);
    expect(statSync(join(volume, "a", "new", "deeper")).mode & 0o7777).toBe(0o3777);
  });

  test("an existing directory is left as it is", () => {
    const before = statSync(join(volume, "a", "b")).mode;
    safeMakeDir("a/b", volume, 0o700);
    expect(statSync(join(volume, "a", "b")).mode).toBe(before);
  });

  test("a planted symlink to the host is not created through", () => {
    symlinkSync(outside, join(volume, "escape"));
    expect(() => safeMakeDir("escape/created", volume, 0o755)).toThrow(`is outside of allowed base ${volume}`);
    expect(existsSync(join(outside, "created"))).toBe(false);
  });

  test("a dangling symlink is not created through either (mkdir says EEXIST)", () => {
    symlinkSync(join(outside, "not-yet"), join(volume, "dangling"));
    let caught: unknown;
    try {
      safeMakeDir("dangling/x", volume, 0o755);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SubPathError);
    expect((caught as SubPathError).code).toBe("EEXIST");
    expect(existsSync(join(outside, "not-yet"))).toBe(false);
    expect(lstatSync(join(volume, "dangling")).isSymbolicLink()).toBe(true);
  });

  test("a path outside the base is refused", () => {
    expect(() => doSafeMakeDir(join(outside, "x"), volume, 0o755)).toThrow(`path ${join(outside, "x")} is outside of allowed base ${volume}`);
    expect(existsSync(join(outside, "x"))).toBe(false);
  });

  test("an existing file in the way is not a directory", () => {
    expect(() => safeMakeDir("a/b/file", volume, 0o755)).toThrow("not a directory");
  });
});
