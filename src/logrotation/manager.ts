/**
 * The container log manager (the kubelet's pkg/kubelet/logs ContainerLogManager): keeps each
 * running container's CRI log file under containerLogMaxSize, with at most containerLogMaxFiles
 * files per container (older rotated files gzipped), rotating by renaming the file and asking the
 * runtime to reopen it (CRI ReopenContainerLog). Readers of the current file keep working: the
 * runtime writes a new file at the same path and the tail stays in the newest rotated file.
 *
 * Where the kubelet looks every containerLogMonitorInterval, bunlet looks at each log again as
 * soon as its growth rate says it may reach the limit (policy.nextCheckDelayMs), so a fast writer
 * is rotated when it crosses the size, not up to ten seconds later. The running containers and
 * their log paths are re-listed every LIST_PERIOD_MS (at most the monitor interval). With
 * podLogsMaxTotalSize set, all files under podLogsDir are also kept under that cap, oldest
 * rotated or dead-container files first.
 */
import { rename, rm, stat } from "node:fs/promises";
import { ContainerState, isNotFound, type CriClient } from "../cri/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { compressLog, podLogFiles, rotatedFilesOf } from "./files.ts";
import { freeRotatedLogName, nextCheckDelayMs, planLogCap, planRotation } from "./policy.ts";

/** How soon a log found missing is looked at again. */
const MISSING_RECHECK_MS = 1_000;
/** How often the running containers are listed (and the node-wide cap checked), at most. */
const LIST_PERIOD_MS = 2_000;

export interface ContainerLogPolicy {
  maxSize: number;
  maxFiles: number;
  maxWorkers: number;
  monitorIntervalMs: number;
  /** podLogsMaxTotalSize; 0 = no cap. */
  totalCap: number;
  podLogsDir: string;
}

export interface ContainerLogManagerDeps {
  cri: Pick<CriClient, "runtime">;
  clock: Clock;
  log: Logger;
}

interface Tracked {
  path: string;
  size?: number;
  checkedAt: number;
  nextAt: number;
}

export class ContainerLogManager {
  readonly #deps: ContainerLogManagerDeps;
  readonly #policy: ContainerLogPolicy;
  readonly #tracked = new Map<string, Tracked>();
  /** Whether the cap could not be met last time (warned once until it can be again). */
  #overCap = false;

  constructor(deps: ContainerLogManagerDeps, policy: ContainerLogPolicy) {
    this.#deps = deps;
    this.#policy = policy;
  }

  /** Watches the logs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, log } = this.#deps;
    const listPeriod = Math.min(LIST_PERIOD_MS, this.#policy.monitorIntervalMs);
    let nextListAt = 0;
    while (!signal.aborted) {
      try {
        if (clock.now() >= nextListAt) {
          await this.#refresh(signal);
          if (this.#policy.totalCap > 0) await this.#enforceCap();
          nextListAt = clock.now() + listPeriod;
        }
        await this.#checkDue(signal);
      } catch (err) {
        if (signal.aborted) return;
        log.error("Failed to rotate container logs; retrying", { err });
        nextListAt = clock.now() + this.#policy.monitorIntervalMs;
      }
      const wake = Math.min(nextListAt, ...[...this.#tracked.values()].map((t) => t.nextAt));
      try {
        await clock.sleep(Math.max(wake - clock.now(), 0), signal);
      } catch {
        return;
      }
    }
  }

  /** The running containers and their log paths; a container seen for the first time is checked now. */
  async #refresh(signal: AbortSignal): Promise<void> {
    const { cri, clock } = this.#deps;
    const { containers } = await cri.runtime.listContainers({ filter: { state: { state: ContainerState.CONTAINER_RUNNING } } }, { signal });
    const running = new Set(containers.map((c) => c.id));
    for (const id of this.#tracked.keys()) if (!running.has(id)) this.#tracked.delete(id);
    for (const id of running) {
      if (this.#tracked.has(id)) continue;
      let path: string;
      try {
        path = (await cri.runtime.containerStatus({ containerId: id }, { signal })).status?.logPath ?? "";
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      // A container without a log path (not one bunlet started) has nothing to rotate.
      if (path === "") continue;
      this.#tracked.set(id, { path, checkedAt: clock.now(), nextAt: clock.now() });
    }
  }

  async #checkDue(signal: AbortSignal): Promise<void> {
    const now = this.#deps.clock.now();
    const due = [...this.#tracked.entries()].filter(([, t]) => t.nextAt <= now);
    const workers = Math.max(this.#policy.maxWorkers, 1);
    for (let i = 0; i < due.length; i += workers) {
      await Promise.all(due.slice(i, i + workers).map(([id, t]) => this.#check(id, t, signal)));
    }
  }

  async #check(id: string, t: Tracked, signal: AbortSignal): Promise<void> {
    const { cri, clock, log } = this.#deps;
    const { maxSize, monitorIntervalMs } = this.#policy;
    const now = clock.now();
    let size: number;
    try {
      size = (await stat(t.path)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      // The file went away (removed by hand, or a reopen that failed): as the kubelet, ask the runtime to reopen it.
      log.info("Log file does not exist, reopening container log", { path: t.path, containerID: id });
      await cri.runtime.reopenContainerLog({ containerId: id }, { signal }).catch((e: unknown) => {
        log.error("Failed to reopen container log; retrying at the next check", { err: e, containerID: id, path: t.path });
      });
      // Looked at again soon: a fast writer's new file must not go unwatched for a whole interval.
      Object.assign(t, { size: undefined, checkedAt: now, nextAt: now + Math.min(monitorIntervalMs, MISSING_RECHECK_MS) });
      return;
    }
    let rotated = false;
    if (size >= maxSize) {
      try {
        rotated = await this.#rotate(id, t.path, signal);
        if (rotated) size = 0;
      } catch (err) {
        if (signal.aborted) return;
        log.error("Failed to rotate log for container", { err, path: t.path, containerID: id });
      }
    }
    // Just rotated: a first look at the new file, soon, so its rate is measured at once.
    const delay = rotated ? nextCheckDelayMs({ size, elapsedMs: 0, maxSize, monitorIntervalMs }) : nextCheckDelayMs({ size, previousSize: t.size, elapsedMs: now - t.checkedAt, maxSize, monitorIntervalMs });
    Object.assign(t, { size, checkedAt: now, nextAt: now + delay });
  }

  /** The kubelet's rotateLog; false when no free name is left for this millisecond. */
  async #rotate(id: string, path: string, signal: AbortSignal): Promise<boolean> {
    const { cri, clock, log } = this.#deps;
    const existing = await rotatedFilesOf(path);
    const plan = planRotation(existing, this.#policy.maxFiles);
    for (const f of [...plan.unused, ...plan.excess]) await rm(f, { force: true });
    for (const f of plan.compress) {
      try {
        await compressLog(f, signal);
      } catch (err) {
        // Left uncompressed; the next rotation counts it among the rotated files and retries.
        log.error("Failed to compress log", { err, path: f, containerID: id });
      }
    }
    const rotated = freeRotatedLogName(path, clock.now(), await rotatedFilesOf(path));
    if (rotated === undefined) return false;
    await rename(path, rotated);
    try {
      await cri.runtime.reopenContainerLog({ containerId: id }, { signal });
    } catch (err) {
      // Put the log back so the next round can rotate it again.
      await rename(rotated, path).catch((renameErr: unknown) => {
        log.error("Failed to rename rotated log", { err: renameErr, rotatedLog: rotated, newLog: path, containerID: id });
      });
      throw new Error(`failed to reopen container log "${id}": ${err instanceof Error ? err.message : String(err)}`);
    }
    log.debug("Rotated container log", { containerID: id, path, rotatedLog: rotated }, 4);
    return true;
  }

  async #enforceCap(): Promise<void> {
    const { log } = this.#deps;
    const live = new Set([...this.#tracked.values()].map((t) => t.path));
    const files = await podLogFiles(this.#policy.podLogsDir, live);
    const { remove, over } = planLogCap(files, this.#policy.totalCap);
    for (const f of remove) await rm(f, { force: true });
    if (remove.length > 0) log.info("Removed old pod log files to stay under podLogsMaxTotalSize", { files: remove.length, podLogsMaxTotalSize: this.#policy.totalCap });
    if (over > 0 && !this.#overCap) {
      log.warn("Pod logs exceed podLogsMaxTotalSize with only running containers' current logs left; they are rotated as they grow", {
        overBytes: over,
        podLogsMaxTotalSize: this.#policy.totalCap,
      });
    }
    this.#overCap = over > 0;
  }
}
