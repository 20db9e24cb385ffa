/**
 * The checkpoint at start (issue 27, beyond the kubelet): with --offline-start (the default) the
 * node's record under `<root-dir>/checkpoint/`; with --offline-start=false bunlet waits for the
 * apiserver as the kubelet does, and a checkpoint an earlier run left is removed: Secrets and
 * tokens must not stay on disk for nothing.
 */
import { existsSync, rmSync } from "node:fs";
import { createCheckpoint, type Checkpoint, type CheckpointOptions } from "./checkpoint.ts";

export function openCheckpoint(opts: CheckpointOptions & { offlineStart: boolean }): Checkpoint | undefined {
  if (opts.offlineStart) return createCheckpoint(opts);
  if (existsSync(opts.dir)) {
    opts.log.info("--offline-start=false: removing the checkpoint of an earlier run", { dir: opts.dir });
    rmSync(opts.dir, { recursive: true, force: true });
  }
  return undefined;
}
