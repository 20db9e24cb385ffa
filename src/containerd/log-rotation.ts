/**
 * The embedded containerd's own log, capped: containerd writes its stderr to `containerd.log`
 * opened for appending, and bunlet rotates that file by copying and truncating it (logrotate's
 * copytruncate), since containerd cannot be asked to reopen it. The copy becomes
 * `containerd.log.1`, older copies move up to `.<maxFiles - 1>` and the oldest goes; with
 * maxFiles 1 the file is only truncated. Lines written between the copy and the truncation are
 * lost, the known price of copytruncate; appends after it land at the start of the empty file.
 */
import { copyFileSync, renameSync, rmSync, statSync, truncateSync } from "node:fs";
import { delay, type Clock } from "../lib/index.ts";
import type { Logger } from "./types.ts";

/** How often the log's size is checked. */
const CHECK_PERIOD_MS = 10_000;

/** The renames of a rotation, oldest first: [from, to]; the last file beyond maxFiles is removed first. */
export function shiftPlan(logFile: string, maxFiles: number): { remove: string; renames: [string, string][] } {
  const kept = Math.max(maxFiles - 1, 0);
  const renames: [string, string][] = [];
  for (let n = kept - 1; n >= 1; n--) renames.push([`${logFile}.${n}`, `${logFile}.${n + 1}`]);
  return { remove: `${logFile}.${Math.max(kept, 1)}`, renames };
}

/** Rotates `logFile` when it holds at least maxSize bytes; true when it did. */
export function rotateContainerdLog(logFile: string, maxSize: number, maxFiles: number): boolean {
  let size: number;
  try {
    size = statSync(logFile).size;
  } catch {
    return false;
  }
  if (maxSize <= 0 || size < maxSize) return false;
  if (maxFiles > 1) {
    const plan = shiftPlan(logFile, maxFiles);
    rmSync(plan.remove, { force: true });
    for (const [from, to] of plan.renames) {
      try {
        renameSync(from, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    copyFileSync(logFile, `${logFile}.1`);
  }
  truncateSync(logFile, 0);
  return true;
}

/** Checks the log every CHECK_PERIOD_MS until the signal aborts. */
export async function runContainerdLogRotation(opts: { logFile: string; maxSize: number; maxFiles: number; clock: Clock; log: Logger; signal: AbortSignal }): Promise<void> {
  while (await delay(opts.clock, CHECK_PERIOD_MS, opts.signal)) {
    try {
      if (rotateContainerdLog(opts.logFile, opts.maxSize, opts.maxFiles)) opts.log.debug("Rotated the embedded containerd's log", { log: opts.logFile }, 4);
    } catch (err) {
      opts.log.warn("Could not rotate the embedded containerd's log; retrying", { log: opts.logFile, err });
    }
  }
}
