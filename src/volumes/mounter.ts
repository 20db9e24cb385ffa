/**
 * tmpfs mounts for memory-backed volumes (emptyDir medium Memory, and the secret, projected and
 * downwardAPI volumes the kubelet wraps in one), through mount(8) and umount(8) as the kubelet's
 * mounter does, and the mount table read from /proc/self/mountinfo.
 */
import { mountPointsUnder, runMountCommand } from "../lib/index.ts";

export interface Mounter {
  /** mount -t tmpfs [-o size=<bytes>] tmpfs <dir> */
  mountTmpfs(dir: string, sizeBytes: bigint | undefined): Promise<void>;
  unmount(dir: string): Promise<void>;
  /** Mount points at or below dir, deepest first. */
  mountsUnder(dir: string): string[];
}

export const realMounter: Mounter = {
  mountTmpfs: (dir, size) => runMountCommand(["mount", "-t", "tmpfs", ...(size !== undefined && size > 0n ? ["-o", `size=${size}`] : []), "tmpfs", dir]),
  unmount: (dir) => runMountCommand(["umount", dir]),
  mountsUnder: (dir) => mountPointsUnder(dir),
};
