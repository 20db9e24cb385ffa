import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const IMAGE_DIR = join(REPO_ROOT, ".tmp", "images");
export const BUSYBOX_TAR = join(IMAGE_DIR, "busybox.tar");
export const PAUSE_TAR = join(IMAGE_DIR, "pause.tar");

async function run(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${err.trim() || out.trim()}`);
  return out;
}

/** Builds the busybox and pause tarballs when missing or stale (the script is a no-op when up to date). */
export async function ensureImages(): Promise<void> {
  await run(["bash", join(REPO_ROOT, "scripts/build-images.sh"), IMAGE_DIR]);
  for (const tar of [BUSYBOX_TAR, PAUSE_TAR]) {
    if (!existsSync(tar)) throw new Error(`scripts/build-images.sh did not produce ${tar}`);
  }
}

/** Imports both images into the k8s.io namespace of the containerd at `socketPath`. */
export async function importImages(socketPath: string): Promise<void> {
  await run(["bash", join(REPO_ROOT, "scripts/import-images.sh"), socketPath, IMAGE_DIR]);
}

export { run as runCommand };
