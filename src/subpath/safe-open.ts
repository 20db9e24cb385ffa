/**
 * Opening and creating a subPath inside a volume without following a symlink a container planted
 * (the kubelet's doSafeOpen, doSafeMakeDir and findExistingPrefix in
 * pkg/volume/util/subpath/subpath_linux.go, the fix of CVE-2017-1002101 and CVE-2021-25741).
 *
 * The kubelet walks with openat(parentFD, name, O_NOFOLLOW) one component at a time. node:fs has
 * no openat, but opening `/proc/self/fd/<parent fd>/<name>` is the same operation: the kernel
 * jumps to the directory the descriptor holds (a magic link: whatever now sits at that directory's
 * old path does not matter) and resolves only `<name>` there, and O_NOFOLLOW applies to that last
 * component. That keeps the agent free of bun:ffi (an experimental API, and a libc binding that
 * must match the host's) for the cost of needing /proc, which the bind mount of
 * /proc/<pid>/fd/<n> needs anyway. Every name is one component (no `/`, `.` or `..`), checked here.
 */
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, normalize, relative } from "node:path";

// Linux's values, the same on x86_64 and arm64; node:fs does not export them.
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
/** The kubelet's openFDFlags: a handle on exactly this inode, never a symlink's target. */
const OPEN_FD_FLAGS = O_PATH | constants.O_NOFOLLOW | O_CLOEXEC;
/** The kubelet's nofollowFlags, with O_DIRECTORY: a created directory must still be one (no FIFO to hang on). */
const NOFOLLOW_DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY | O_CLOEXEC;

/** The error of a failed safe open or make: what failed, in the kubelet's words. */
export class SubPathError extends Error {
  override readonly name = "SubPathError";
  constructor(
    message: string,
    /** The errno code underneath (EEXIST, ENOENT, ...), when there is one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** mount.PathWithinBase: fullPath is base or below it (lexically). */
export function pathWithinBase(fullPath: string, base: string): boolean {
  const rel = relative(base, fullPath);
  return !isAbsolute(rel) && rel !== ".." && !rel.startsWith("../");
}

function assertComponent(name: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new SubPathError(`invalid path component ${JSON.stringify(name)}`);
  }
}

/** openat(dirFd, name, flags) through the descriptor's /proc/self/fd magic link. */
export function openAt(dirFd: number, name: string, flags: number, mode?: number): number {
  assertComponent(name);
  return openSync(`/proc/self/fd/${dirFd}/${name}`, flags, mode);
}

/** mkdirat(dirFd, name, mode); mkdir never follows a symlink in its last component (EEXIST). */
function mkdirAt(dirFd: number, name: string, mode: number): void {
  assertComponent(name);
  mkdirSync(`/proc/self/fd/${dirFd}/${name}`, mode);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closing a descriptor we own fails only if it is already closed; nothing to do.
  }
}

function segmentsOf(pathname: string, base: string): string[] {
  const rel = relative(base, pathname);
  return rel === "" ? [] : rel.split("/");
}

/**
 * doSafeOpen: a descriptor (O_PATH) on pathname, reached from base one component at a time, none
 * of them a symlink; pathname must already have its symlinks resolved and lie within base. The
 * caller closes the descriptor.
 */
export function doSafeOpen(pathname: string, base: string): number {
  pathname = normalize(pathname);
  base = normalize(base);
  let parent: number;
  try {
    parent = openSync(base, constants.O_RDONLY | constants.O_NOFOLLOW | O_CLOEXEC);
  } catch (err) {
    throw new SubPathError(`cannot open directory ${base}: ${messageOf(err)}`, errnoOf(err));
  }
  let current = base;
  try {
    if (!pathWithinBase(pathname, base)) throw new SubPathError(`path ${pathname} is outside of allowed base ${base}`);
    for (const seg of segmentsOf(pathname, base)) {
      current = join(current, seg);
      if (!pathWithinBase(current, base)) throw new SubPathError(`path ${current} is outside of allowed base ${base}`);
      let child: number;
      try {
        child = openAt(parent, seg, OPEN_FD_FLAGS);
      } catch (err) {
        throw new SubPathError(`cannot open ${current}: ${messageOf(err)}`, errnoOf(err));
      }
      closeQuietly(parent);
      parent = child;
      if (fstatSync(parent).isSymbolicLink()) throw new SubPathError(`unexpected symlink found ${current}`);
    }
    const fd = parent;
    parent = -1;
    return fd;
  } finally {
    if (parent !== -1) closeQuietly(parent);
  }
}

/**
 * findExistingPrefix: the longest existing prefix of pathname below base (symlinks followed, as
 * the kubelet's does: the result is resolved and checked against base before it is used) and the
 * directories still to create.
 */
export function findExistingPrefix(base: string, pathname: string): { existing: string; toCreate: string[] } {
  const dirs = segmentsOf(pathname, base);
  let fd = openSync(base, constants.O_RDONLY | O_CLOEXEC);
  let current = base;
  try {
    for (let i = 0; i < dirs.length; i++) {
      let child: number;
      try {
        // O_PATH: a FIFO a user put in the way cannot make the open hang.
        child = openAt(fd, dirs[i], O_PATH | O_CLOEXEC);
      } catch (err) {
        if (errnoOf(err) === "ENOENT") return { existing: current, toCreate: dirs.slice(i) };
        throw err;
      }
      closeQuietly(fd);
      fd = child;
      current = join(current, dirs[i]);
    }
    return { existing: pathname, toCreate: [] };
  } finally {
    closeQuietly(fd);
  }
}

/**
 * doSafeMakeDir: creates pathname's missing directories inside base, each with mkdirat in the
 * directory opened before it and opened again without following symlinks, then given perm with
 * fchmod (mkdir's mode is cut by the umask; the kubelet wants exactly perm, setgid and sticky
 * bits included). Unlike the kubelet, which passes mkdirat an absolute path, the directory is
 * made relative to the held descriptor, so a component swapped for a symlink cannot redirect even
 * the mkdir.
 */
export function doSafeMakeDir(pathname: string, base: string, perm: number): void {
  if (!pathWithinBase(pathname, base)) throw new SubPathError(`path ${pathname} is outside of allowed base ${base}`);
  const st = statSync(pathname, { throwIfNoEntry: false });
  if (st?.isDirectory()) return;
  if (st) throw new SubPathError(`mkdir ${pathname}: not a directory`, "ENOTDIR");

  let found;
  try {
    found = findExistingPrefix(base, pathname);
  } catch (err) {
    throw new SubPathError(`error opening directory ${pathname}: ${messageOf(err)}`, errnoOf(err));
  }
  let fullExisting: string;
  try {
    fullExisting = realpathSync(found.existing);
  } catch (err) {
    throw new SubPathError(`error opening directory ${found.existing}: ${messageOf(err)}`, errnoOf(err));
  }
  if (!pathWithinBase(fullExisting, base)) throw new SubPathError(`path ${fullExisting} is outside of allowed base ${base}`);

  let parent: number;
  try {
    parent = doSafeOpen(fullExisting, base);
  } catch (err) {
    throw new SubPathError(`cannot open directory ${found.existing}: ${messageOf(err)}`, errnoOf(err));
  }
  let current = fullExisting;
  try {
    for (const dir of found.toCreate) {
      current = join(current, dir);
      try {
        mkdirAt(parent, dir, perm & 0o777);
      } catch (err) {
        throw new SubPathError(`cannot create directory ${current}: ${messageOf(err)}`, errnoOf(err));
      }
      let child: number;
      try {
        child = openAt(parent, dir, NOFOLLOW_DIR_FLAGS);
      } catch (err) {
        throw new SubPathError(`cannot open ${current}: ${messageOf(err)}`, errnoOf(err));
      }
      closeQuietly(parent);
      parent = child;
      try {
        fchmodSync(parent, perm & 0o7777);
      } catch (err) {
        throw new SubPathError(`chmod ${JSON.stringify(current)} failed: ${messageOf(err)}`, errnoOf(err));
      }
    }
  } finally {
    closeQuietly(parent);
  }
}

/** SafeMakeDir: subdir (relative) created inside base, whose own symlinks are resolved first. */
export function safeMakeDir(subdir: string, base: string, perm: number): void {
  let realBase: string;
  try {
    realBase = realpathSync(base);
  } catch (err) {
    throw new SubPathError(`error resolving symlinks in ${base}: ${messageOf(err)}`, errnoOf(err));
  }
  doSafeMakeDir(join(realBase, subdir), realBase, perm);
}
