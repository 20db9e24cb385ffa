/**
 * CleanSubPaths: the subPath bind mounts of a pod unmounted and their targets removed, once its
 * containers are gone and before its volumes are torn down (the kubelet runs it for each volume
 * in UnmountVolume). Nothing here follows a symlink or removes recursively: each target is
 * unmounted first and then removed with rmdir or unlink, so a mount that did not go away is an
 * error (and housekeeping retries) rather than a walk into a volume or a host directory.
 */
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../lib/index.ts";
import { SUBPATH_DIR } from "./bind.ts";
import type { BindMounter } from "./mounter.ts";
import { SubPathError } from "./safe-open.ts";

export interface CleanDeps {
  mounter: BindMounter;
  log: Logger;
}

/** More than this many mounts stacked on one target means something else keeps mounting there. */
const MAX_STACKED_MOUNTS = 8;

/** The entries of dir, or [] when dir is gone or was a symlink (which is removed, not followed). */
function entriesOf(dir: string): string[] {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return [];
  if (!st.isDirectory()) {
    unlinkSync(dir);
    return [];
  }
  return readdirSync(dir);
}

/** doCleanSubPath: one target unmounted (every mount stacked on it) and removed. */
async function cleanTarget(deps: CleanDeps, target: string): Promise<void> {
  for (let i = 0; deps.mounter.isMountPoint(target); i++) {
    if (i === MAX_STACKED_MOUNTS) throw new SubPathError(`error cleaning subpath mount ${target}: still mounted after ${i} unmounts`);
    await deps.mounter.unmount(target);
  }
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isDirectory()) rmdirSync(target);
  else unlinkSync(target);
  deps.log.debug("Successfully cleaned subpath directory", { path: target }, 4);
}

/** Removes dir if it is empty; a directory that still holds something stays (and says so). */
function removeDir(dir: string): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isDirectory()) rmdirSync(dir);
  else unlinkSync(dir);
}

/** Every subPath mount of the pod: `<podDir>/volume-subpaths/<volume>/<container>/<index>`. */
export async function cleanSubPaths(deps: CleanDeps, podDir: string): Promise<void> {
  const root = join(podDir, SUBPATH_DIR);
  for (const volume of entriesOf(root)) {
    const volumeDir = join(root, volume);
    for (const container of entriesOf(volumeDir)) {
      const containerDir = join(volumeDir, container);
      deps.log.debug("Cleaning up subpath mounts for container", { path: containerDir }, 4);
      for (const index of entriesOf(containerDir)) await cleanTarget(deps, join(containerDir, index));
      removeDir(containerDir);
    }
    removeDir(volumeDir);
  }
  removeDir(root);
}
