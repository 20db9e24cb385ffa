// Pod data directories on a real filesystem (a temp dir), with a mountinfo fixture standing in
// for /proc/self/mountinfo.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPodDirs, PodDirMountedError } from "../../../src/podsync/pod-dirs.ts";

let root = "";
let podsDir = "";
let mountInfo = "";

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "bunlet-poddirs-"));
  podsDir = join(root, "pods");
  mountInfo = join(root, "mountinfo");
  writeFileSync(mountInfo, "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

test("make creates the pod directory with its volumes, plugins and containers subdirectories", async () => {
  const dirs = createPodDirs({ podsDir, mountInfoPath: mountInfo });
  await dirs.make("uid-1");
  await dirs.make("uid-1");
  for (const sub of ["volumes", "plugins", "containers"]) expect(existsSync(join(podsDir, "uid-1", sub))).toBe(true);
  expect(await dirs.list()).toEqual(["uid-1"]);
});

test("list is empty before any pod ran, and ignores plain files", async () => {
  const dirs = createPodDirs({ podsDir, mountInfoPath: mountInfo });
  expect(await dirs.list()).toEqual([]);
  await dirs.make("uid-1");
  writeFileSync(join(podsDir, "stray-file"), "x");
  expect(await dirs.list()).toEqual(["uid-1"]);
});

test("remove deletes the tree, but refuses while something is mounted below it", async () => {
  const dirs = createPodDirs({ podsDir, mountInfoPath: mountInfo });
  await dirs.make("uid-1");
  await dirs.make("uid-2");
  const mounted = join(podsDir, "uid-2", "volumes", "my vol");
  const escaped = mounted.replace(/ /g, "\\040");
  writeFileSync(mountInfo, `22 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 22 0:50 / ${escaped} rw - tmpfs tmpfs rw\n`);
  await dirs.remove("uid-1");
  expect(existsSync(join(podsDir, "uid-1"))).toBe(false);
  const err = await dirs.remove("uid-2").catch((e) => e);
  expect(err).toBeInstanceOf(PodDirMountedError);
  expect(err.mounts).toEqual([mounted]);
  expect(existsSync(join(podsDir, "uid-2"))).toBe(true);
});

test("a UID that would escape the pods directory is refused", async () => {
  const dirs = createPodDirs({ podsDir, mountInfoPath: mountInfo });
  for (const uid of ["", "..", "a/b"]) await expect(dirs.remove(uid)).rejects.toThrow("invalid pod UID");
});
