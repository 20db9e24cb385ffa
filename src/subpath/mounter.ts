/**
 * The mounts the subPath code makes and removes: bind mounts through mount(8) with
 * `--no-canonicalize` (the source is a /proc/<pid>/fd/<n> magic link that must be handed to the
 * kernel as it is, not resolved by mount(8) to a path a container could have swapped), unmounts
 * through umount(8), and the mount table from /proc/self/mountinfo (lib's mount helpers).
 */
import { mountPointsUnder, runMountCommand } from "../lib/index.ts";

export interface BindMounter {
  /** mount --no-canonicalize --bind <source> <target> */
  bindMount(source: string, target: string): Promise<void>;
  /** umount [-l] <target>; lazy detaches a mount that is still busy. */
  unmount(target: string, lazy?: boolean): Promise<void>;
  /** Whether path is a mount point now (/proc/self/mountinfo). */
  isMountPoint(path: string): boolean;
}

export const realBindMounter: BindMounter = {
  bindMount: (source, target) => runMountCommand(["mount", "--no-canonicalize", "--bind", source, target]),
  // The target is a path bunlet made under the pod directory; umount must not resolve it either.
  unmount: (target, lazy = false) => runMountCommand(["umount", "--no-canonicalize", ...(lazy ? ["-l"] : []), target]),
  isMountPoint: (path) => mountPointsUnder(path).includes(path),
};
