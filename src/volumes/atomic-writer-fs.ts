/**
 * What the AtomicWriter trusts on disk, and how it touches it. A volume directory is mounted into
 * containers (read-write before bunlet mounted these volumes read-only), so everything in it may
 * have been replaced by a container: `..data` may point anywhere, a user-visible name may be a
 * file or a link to `../../..`, a data directory may hold symlinks. CVE-2017-1002102: the kubelet
 * read `..data` and removed whatever it named. Here nothing read from the volume is followed:
 * names are checked to be one component directly in the volume directory, types come from
 * lstat, removal goes through Bun's rm (openat with O_NOFOLLOW, unlinkat: a symlink is removed,
 * never walked), and files are created with O_EXCL (no symlink at the final name is followed).
 */
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Payload } from "./atomic-writer.ts";

export const DATA_DIR_NAME = "..data";
export const NEW_DATA_DIR_NAME = "..data_tmp";

/** A timestamped data directory's name, as newTimestampDir makes it: `..2006_01_02_15_04_05.<random>`. */
const DATA_DIR_PATTERN = /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.[A-Za-z0-9]+$/;

export function isDataDirName(name: string): boolean {
  return DATA_DIR_PATTERN.test(name);
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function describeEntry(path: string): string {
  const st = lstatOrUndefined(path);
  if (!st) return "missing";
  if (st.isSymbolicLink()) return `a symlink to ${JSON.stringify(readlinkSync(path))}`;
  if (st.isDirectory()) return "a directory";
  if (st.isFile()) return "a regular file";
  return "a special file";
}

/** Where `..data` leads: the name of a data directory of this volume, or why it cannot be trusted. */
export type DataLink = { kind: "none" } | { kind: "ok"; dir: string } | { kind: "untrusted"; found: string };

/**
 * `..data` is trusted only as a symlink whose target is the name of a sibling timestamped data
 * directory (no "/"), which is a real directory (not a symlink) directly in the volume directory.
 */
export function readDataLink(targetDir: string): DataLink {
  const link = join(targetDir, DATA_DIR_NAME);
  const st = lstatOrUndefined(link);
  if (!st) return { kind: "none" };
  if (!st.isSymbolicLink()) return { kind: "untrusted", found: `${DATA_DIR_NAME} is ${describeEntry(link)}, not a symlink` };
  const target = readlinkSync(link);
  if (!isDataDirName(target)) return { kind: "untrusted", found: `${DATA_DIR_NAME} is a symlink to ${JSON.stringify(target)}, not to a data directory of this volume` };
  const dir = lstatOrUndefined(join(targetDir, target));
  if (!dir?.isDirectory()) return { kind: "untrusted", found: `${DATA_DIR_NAME} points at ${JSON.stringify(target)}, which is ${describeEntry(join(targetDir, target))}` };
  return { kind: "ok", dir: target };
}

/** The user-visible link of a top-level name, as the writer leaves it. */
export function visibleLinkTarget(top: string): string {
  return `${DATA_DIR_NAME}/${top}`;
}

/** Why the visible name `top` is not the writer's link, or undefined when it is (or is absent). */
export function visibleNameProblem(targetDir: string, top: string): string | undefined {
  const path = join(targetDir, top);
  const st = lstatOrUndefined(path);
  if (!st) return undefined;
  if (st.isSymbolicLink() && readlinkSync(path) === visibleLinkTarget(top)) return undefined;
  return `user-visible name ${JSON.stringify(top)} is ${describeEntry(path)}, not the link to ${visibleLinkTarget(top)}`;
}

/** Names directly in the volume directory. */
export function entriesOf(targetDir: string): string[] {
  return readdirSync(targetDir);
}

/**
 * Removes `name`, one entry directly in `targetDir`, whatever it is. A symlink is unlinked, a
 * directory removed without following any link inside it.
 */
export function removeEntry(targetDir: string, name: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/")) {
    throw new Error(`refusing to remove ${JSON.stringify(name)}: not one entry of the volume directory ${targetDir}`);
  }
  rmSync(join(targetDir, name), { recursive: true, force: true });
}

/**
 * True when the data directory holds exactly the payload: the same paths as regular files (no
 * symlink anywhere, no extra entry), with the same modes, owners and bytes.
 */
export function holdsPayload(dataDir: string, payload: Payload): boolean {
  const expected = new Map<string, "file" | "dir">();
  for (const path of payload.keys()) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) expected.set(parts.slice(0, i).join("/"), "dir");
    expected.set(path, "file");
  }
  const seen = new Set<string>();
  const walk = (rel: string): boolean => {
    for (const e of readdirSync(rel === "" ? dataDir : join(dataDir, rel), { withFileTypes: true })) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      const want = expected.get(path);
      if (want === "dir" && e.isDirectory()) {
        seen.add(path);
        if (!walk(path)) return false;
      } else if (want === "file" && e.isFile()) seen.add(path);
      else return false;
    }
    return true;
  };
  if (!walk("") || seen.size !== expected.size) return false;
  for (const [path, file] of payload) {
    if (!sameFile(join(dataDir, path), file.data, file.mode, file.fsUser)) return false;
  }
  return true;
}

/** Compares one file, opened without following a symlink and read no further than expected. */
function sameFile(path: string, data: Uint8Array, mode: number, fsUser: number | undefined): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== data.length || (st.mode & 0o7777) !== mode) return false;
    if (fsUser !== undefined && st.uid !== fsUser) return false;
    const buf = Buffer.alloc(data.length);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, read);
      if (n === 0) return false;
      read += n;
    }
    return buf.equals(data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates `rel` under the fresh data directory `dataDir`: each parent made here or checked to be
 * a real directory, the file created with O_EXCL (an existing name, a planted symlink included,
 * is an error), its mode and owner set through the descriptor.
 */
export function createFile(dataDir: string, rel: string, data: Uint8Array, mode: number, fsUser: number | undefined): void {
  const parts = rel.split("/");
  let dir = dataDir;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    try {
      mkdirSync(dir, { mode: 0o755 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a directory; refusing to write through it`);
  }
  const fd = openSync(join(dataDir, rel), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    // The umask narrowed the mode given to open(2).
    fchmodSync(fd, mode);
    if (fsUser !== undefined) fchownSync(fd, fsUser, -1);
  } finally {
    closeSync(fd);
  }
}

/** Sets a fresh data directory's mode through a descriptor opened without following a link. */
export function chmodDir(path: string, mode: number): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}
