/**
 * PrepareSafeSubpath (the kubelet's doBindSubPath and prepareSubpathTarget): the subPath is
 * resolved, checked to lie within the volume, and opened component by component without
 * following symlinks (safe-open.ts); the descriptor, which a container can no longer redirect,
 * is bind-mounted through /proc/<pid>/fd/<n> onto
 * `<pod dir>/volume-subpaths/<volume>/<container>/<mount index>`, and that target is what the
 * runtime bind-mounts into the container. A target already mounted is kept when it is still the
 * same file (a restarted container), and replaced otherwise.
 */
import { closeSync, fstatSync, lstatSync, mkdirSync, realpathSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "../lib/index.ts";
import type { BindMounter } from "./mounter.ts";
import { doSafeOpen, pathWithinBase, SubPathError } from "./safe-open.ts";

/** The kubelet's containerSubPathDirectoryName. */
export const SUBPATH_DIR = "volume-subpaths";

/** One volumeMount's subPath (the kubelet's subpath.Subpath). */
export interface Subpath {
  /** Index of the volumeMount in the container's volumeMounts. */
  volumeMountIndex: number;
  /** The full path of the subPath on the host: the volume's path joined with the subPath. */
  path: string;
  /** The pod's name for the volume. */
  volumeName: string;
  /** The volume's path on the host. */
  volumePath: string;
  podDir: string;
  containerName: string;
}

export interface BindDeps {
  mounter: BindMounter;
  log: Logger;
  /** The agent's pid, whose /proc/<pid>/fd/<n> mount(8) reads. */
  pid: number;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Volume and container names become directory names: each must be exactly one component. */
function component(name: string, what: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new SubPathError(`invalid ${what} ${JSON.stringify(name)} for a subPath directory`);
  }
  return name;
}

function subpathBindTarget(sp: Subpath): string {
  return join(sp.podDir, SUBPATH_DIR, component(sp.volumeName, "volume name"), component(sp.containerName, "container name"), String(sp.volumeMountIndex));
}

/** Whether the mounted target is the inode the safe descriptor holds (checkSubPathFileEqual, by descriptor). */
function sameFile(fd: number, target: string): boolean {
  const s = fstatSync(fd);
  const t = lstatSync(target);
  return s.dev === t.dev && s.ino === t.ino;
}

/** removeEmptyDirs: from endDir up to (not including) baseDir, each directory while it is empty. */
function removeEmptyDirs(baseDir: string, endDir: string): void {
  if (!pathWithinBase(endDir, baseDir)) throw new SubPathError(`endDir ${JSON.stringify(endDir)} is not within baseDir ${JSON.stringify(baseDir)}`);
  for (let dir = endDir; dir !== baseDir && dir !== dirname(dir); dir = dirname(dir)) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) continue;
    if (!st.isDirectory()) throw new SubPathError(`path ${JSON.stringify(dir)} not a directory`);
    try {
      rmdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") return;
      throw err;
    }
  }
}

/** cleanSubPath: a failed bind's target unmounted (if it got mounted) and removed, with its empty parents. */
async function cleanSubPath(deps: BindDeps, sp: Subpath, target: string): Promise<void> {
  if (deps.mounter.isMountPoint(target)) await deps.mounter.unmount(target);
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (st?.isDirectory()) rmdirSync(target);
  else if (st) unlinkSync(target);
  removeEmptyDirs(sp.podDir, dirname(target));
}

/** The target for the bind mount: "mounted" when a good one is there already. */
async function prepareSubpathTarget(deps: BindDeps, fd: number, target: string): Promise<"mounted" | "ready"> {
  if (deps.mounter.isMountPoint(target)) {
    if (sameFile(fd, target)) {
      deps.log.debug("Skipping bind-mounting subpath: already mounted", { path: target }, 5);
      return "mounted";
    }
    deps.log.debug("Subpath bind mount points to a different inode than its source; lazy-unmounting and recreating it", { path: target }, 4);
    await deps.mounter.unmount(target, true);
  }
  mkdirSync(dirname(target), { recursive: true, mode: 0o750 });
  if (fstatSync(fd).isDirectory()) {
    try {
      mkdirSync(target, 0o750);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new SubPathError(`error creating directory ${target}: ${messageOf(err)}`);
    }
  } else {
    // A file is enough for every other type (file, device, socket, ...): the bind mount gives the
    // target the source's type.
    try {
      writeFileSync(target, "", { mode: 0o640 });
    } catch (err) {
      throw new SubPathError(`error creating file ${target}: ${messageOf(err)}`);
    }
  }
  return "ready";
}

/** PrepareSafeSubpath: the path to hand to the runtime for this subPath. */
export async function prepareSafeSubpath(deps: BindDeps, sp: Subpath): Promise<string> {
  // Symlinks are resolved once here; the walk below refuses any that appear afterwards.
  let volumePath: string;
  let path: string;
  try {
    volumePath = realpathSync(sp.volumePath);
  } catch (err) {
    throw new SubPathError(`error resolving symlinks in ${JSON.stringify(sp.volumePath)}: ${messageOf(err)}`);
  }
  try {
    path = realpathSync(sp.path);
  } catch (err) {
    throw new SubPathError(`error resolving symlinks in ${JSON.stringify(sp.path)}: ${messageOf(err)}`);
  }
  if (!pathWithinBase(path, volumePath)) throw new SubPathError(`subpath ${JSON.stringify(path)} not within volume path ${JSON.stringify(volumePath)}`);
  let fd: number;
  try {
    fd = doSafeOpen(path, volumePath);
  } catch (err) {
    throw new SubPathError(`error opening subpath ${path}: ${messageOf(err)}`);
  }
  const target = subpathBindTarget(sp);
  try {
    if ((await prepareSubpathTarget(deps, fd, target)) === "mounted") return target;
    try {
      await deps.mounter.bindMount(`/proc/${deps.pid}/fd/${fd}`, target);
    } catch (err) {
      await cleanSubPath(deps, sp, target).catch((cleanErr) => deps.log.error("Failed to clean subpath", { path: target, err: cleanErr }));
      throw new SubPathError(`error mounting ${path}: ${messageOf(err)}`);
    }
    deps.log.debug("Bound SubPath", { path, target }, 3);
    return target;
  } finally {
    closeSync(fd);
  }
}

/** Whether the subPath's path exists (the kubelet's PathExists: symlinks followed). */
export function pathExists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}
