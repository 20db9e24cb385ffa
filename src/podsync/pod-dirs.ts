/**
 * Pod data directories under `<root-dir>/pods/<uid>` (the kubelet's makePodDataDirs and
 * cleanupOrphanedPodDirs). The pod syncer creates them; the terminated-pod sync and housekeeping
 * remove them. Removal refuses while anything is mounted below the directory, so a volume that was
 * not torn down is never deleted through its mount.
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PodDirs } from "./types.ts";

/** Subdirectories the kubelet creates for every pod. */
const SUBDIRS = ["volumes", "plugins", "containers"];

export class PodDirMountedError extends Error {
  readonly dir: string;
  readonly mounts: string[];
  constructor(dir: string, mounts: string[]) {
    super(`pod directory ${dir} still has mounts (${mounts.join(", ")}); not removing it`);
    this.name = "PodDirMountedError";
    this.dir = dir;
    this.mounts = mounts;
  }
}

export interface PodDirsOptions {
  podsDir: string;
  /** Where mount points are read from (tests point it at a fixture). */
  mountInfoPath?: string;
}

export function createPodDirs(opts: PodDirsOptions): PodDirs & { podDir(uid: string): string } {
  const { podsDir } = opts;
  const mountInfoPath = opts.mountInfoPath ?? "/proc/self/mountinfo";
  const podDir = (uid: string) => {
    if (uid === "" || uid.includes("/") || uid === "." || uid === "..") throw new Error(`invalid pod UID ${JSON.stringify(uid)}`);
    return join(podsDir, uid);
  };

  return {
    podDir,
    async make(uid) {
      const dir = podDir(uid);
      for (const sub of SUBDIRS) await mkdir(join(dir, sub), { recursive: true, mode: 0o750 });
    },
    async list() {
      try {
        const entries = await readdir(podsDir, { withFileTypes: true });
        return entries.filter((e) => e.isDirectory()).map((e) => e.name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw err;
      }
    },
    async remove(uid) {
      const dir = podDir(uid);
      const mounts = await mountsUnder(mountInfoPath, dir);
      if (mounts.length > 0) throw new PodDirMountedError(dir, mounts);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Mount points at or below dir, from a mountinfo file (field 5 is the mount point, octal-escaped). */
async function mountsUnder(mountInfoPath: string, dir: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(mountInfoPath, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (!field) continue;
    const mountPoint = field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
    if (mountPoint === dir || mountPoint.startsWith(dir + "/")) found.push(mountPoint);
  }
  return found;
}
