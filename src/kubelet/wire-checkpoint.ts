/**
 * The checkpoint area of the wiring (issue 27, beyond the kubelet): with --kubeconfig, the node's
 * record of its desired state under `<root-dir>/checkpoint/` (src/checkpoint/open.ts decides what
 * --offline-start keeps). Its pods become the apiserver source's first snapshot and its objects
 * answer for the apiserver until the first list (and whenever a read of the apiserver fails).
 * Standalone there is none.
 */
import { join } from "node:path";
import { openCheckpoint, type Checkpoint } from "../checkpoint/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { WireBase } from "./wire-base.ts";

export function wireCheckpoint(config: BunletConfig, base: Pick<WireBase, "clock" | "log" | "signal">): Checkpoint | undefined {
  if (config.kubeconfig === "") return undefined;
  const log = base.log.with({ component: "checkpoint" });
  return openCheckpoint({ dir: join(config.rootDir, "checkpoint"), offlineStart: config.offlineStart, clock: base.clock, log, signal: base.signal });
}
