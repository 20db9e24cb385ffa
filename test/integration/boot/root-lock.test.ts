// The root-directory lock on real files: flock is per open file description, so two locks taken
// in this one process contend exactly as two bunlets would.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockRootDir, RootDirInUseError, rootLockFiles, type RootLock } from "../../../src/boot/root-lock.ts";
import { LockHeldError, realClock, tryLockFile } from "../../../src/lib/index.ts";
import { createMemoryLogger } from "../../../src/lib/testing.ts";

let dir = "";
const held: RootLock[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bunlet-lock-"));
});

afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
  rmSync(dir, { recursive: true, force: true });
});

function lock(rootDir: string, opts: { lockFile?: string; exitOnLockContention?: boolean; signal?: AbortSignal } = {}) {
  const log = createMemoryLogger();
  const p = lockRootDir({
    rootDir,
    lockFile: opts.lockFile ?? "",
    exitOnLockContention: opts.exitOnLockContention ?? false,
    clock: realClock,
    log,
    signal: opts.signal ?? new AbortController().signal,
    pollMs: 20,
  }).then((l) => {
    held.push(l);
    return l;
  });
  return { p, log };
}

describe("tryLockFile", () => {
  test("writes the holder's pid, and a second lock names it", () => {
    const path = join(dir, "x.lock");
    const first = tryLockFile(path, 4242);
    expect(readFileSync(path, "utf8")).toBe("4242\n");
    let err: unknown;
    try {
      tryLockFile(path, 7);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LockHeldError);
    expect((err as LockHeldError).holderPid).toBe(4242);
    // The loser left the holder's pid in place.
    expect(readFileSync(path, "utf8")).toBe("4242\n");
    first.release();
    tryLockFile(path, 8).release();
  });
});

describe("lockRootDir", () => {
  test("a root dir it creates gets the kubelet's mode 0750 (setupDataDirs), not the umask's", async () => {
    const root = join(dir, "made", "root");
    const old = process.umask(0o022);
    try {
      await lock(root).p;
    } finally {
      process.umask(old);
    }
    expect(statSync(root).mode & 0o777).toBe(0o750);
  });

  test("creates the root dir and locks <root-dir>/bunlet.lock", async () => {
    const root = join(dir, "root");
    const l = await lock(root).p;
    expect(l.files).toEqual([join(root, "bunlet.lock")]);
    expect(existsSync(join(root, "bunlet.lock"))).toBe(true);
    expect(readFileSync(join(root, "bunlet.lock"), "utf8")).toBe(`${process.pid}\n`);
  });

  test("a second lock on the same root dir fails at once, naming the dir and the holder's pid", async () => {
    const root = join(dir, "root");
    await lock(root).p;
    const second = lock(root);
    const err = await second.p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(RootDirInUseError);
    const e = err as RootDirInUseError;
    expect(e.rootDir).toBe(root);
    expect(e.holderPid).toBe(process.pid);
    expect(e.message).toContain(root);
    expect(e.message).toContain(`pid ${process.pid}`);
  });

  test("--lock-file is locked too, and contention on it fails the same way", async () => {
    const extra = join(dir, "kubelet.lock");
    const first = await lock(join(dir, "a"), { lockFile: extra }).p;
    expect(first.files).toEqual([join(dir, "a", "bunlet.lock"), extra]);
    const err = await lock(join(dir, "b"), { lockFile: extra }).p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(RootDirInUseError);
    expect((err as RootDirInUseError).lockFile).toBe(extra);
    // The failed attempt released the root lock it had already taken.
    await lock(join(dir, "b")).p;
  });

  test("rootLockFiles does not lock the same file twice", () => {
    expect(rootLockFiles("/r/", "/r/bunlet.lock")).toEqual(["/r/bunlet.lock"]);
    expect(rootLockFiles("/r", "")).toEqual(["/r/bunlet.lock"]);
  });

  test("with --exit-on-lock-contention the newcomer asks the holder to leave and gets the lock after it", async () => {
    const root = join(dir, "root");
    const holder = await lock(root, { exitOnLockContention: true }).p;
    let asked = false;
    void holder.contended.then(() => (asked = true));
    const newcomer = lock(root, { exitOnLockContention: true });
    await holder.contended;
    expect(asked).toBe(true);
    // The holder shuts down and releases; only then does the newcomer hold the lock.
    holder.release();
    const taken = await newcomer.p;
    expect(taken.files).toEqual([join(root, "bunlet.lock")]);
    expect(newcomer.log.lines.some((l) => String(l.msg).includes("asked it to exit"))).toBe(true);
  });

  test("a newcomer with --exit-on-lock-contention waits while the holder stays, and stops waiting when aborted", async () => {
    const root = join(dir, "root");
    const holder = await lock(root).p;
    const stop = new AbortController();
    const newcomer = lock(root, { exitOnLockContention: true, signal: stop.signal });
    // The newcomer waits; giving up ends its wait with the abort.
    stop.abort(new Error("gave up"));
    const err = await newcomer.p.then(() => undefined, (e: unknown) => e);
    expect(String(err)).toContain("gave up");
    expect(holder.files.length).toBe(1);
  });
});
