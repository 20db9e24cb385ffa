/**
 * The checkpoint area of the wiring (issue 27, beyond the kubelet): with --kubeconfig and
 * --offline-start (the default), the node's record of its desired state under
 * `<root-dir>/checkpoint/`. Its pods become the apiserver source's first snapshot and its objects
 * answer for the apiserver until the first list (and whenever a read of the apiserver fails). With
 * --offline-start=false bunlet waits for the apiserver as the kubelet does, and a checkpoint an
 * earlier run left is removed: Secrets and tokens must not stay on disk for nothing.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createCheckpoint, type Checkpoint } from "../checkpoint/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { WireBase } from "./wire-base.ts";

export function wireCheckpoint(config: BunletConfig, base: Pick<WireBase, "clock" | "log" | "signal">): Checkpoint | undefined {
  const dir = join(config.rootDir, "checkpoint");
  const log = base.log.with({ component: "checkpoint" });
  if (config.kubeconfig === "") return undefined;
  if (!config.offlineStart) {
    if (existsSync(dir)) {
      log.info("--offline-start=false: removing the checkpoint of an earlier run", { dir });
      rmSync(dir, { recursive: true, force: true });
    }
    return undefined;
  }
  return createCheckpoint({ dir, clock: base.clock, log, signal: base.signal });
}
