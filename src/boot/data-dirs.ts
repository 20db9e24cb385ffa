/**
 * The root directory, made before any area reads it (the kubelet's setupDataDirs): mode 0750, so
 * pods' volumes and secrets under it are not open to other users; an existing directory is kept
 * as it is. The machine's filesystem capacity (node status, admission) is read from it before any
 * pod directory exists.
 */
import { mkdirSync } from "node:fs";

export function setupRootDir(rootDir: string): void {
  mkdirSync(rootDir, { recursive: true, mode: 0o750 });
}
