/**
 * Where container logs live: `<podLogsDir>/<ns>_<name>_<uid>/<container>/<restartCount>.log`
 * (the sandbox's log directory plus the container's relative log path), and the legacy
 * `/var/log/containers/<pod>_<ns>_<container>-<id>.log` symlinks that log shippers follow.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const LEGACY_SUFFIX = ".log";
/** ext4's file name limit. */
const MAX_FILE_NAME = 255;

export function podLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  return join(podLogsDir, `${namespace}_${name}_${uid}`);
}

export function containerLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string, container: string): string {
  return join(podLogsDirectory(podLogsDir, namespace, name, uid), container);
}

/** The container's log path relative to the sandbox log directory. */
export function containerLogPath(container: string, restartCount: number): string {
  return join(container, `${restartCount}.log`);
}

export function legacyLogSymlink(containerLogsDir: string, podName: string, namespace: string, container: string, containerId: string): string {
  const base = `${podName}_${namespace}_${container}-${containerId}`.slice(0, MAX_FILE_NAME - LEGACY_SUFFIX.length);
  return join(containerLogsDir, base + LEGACY_SUFFIX);
}

/**
 * One more than the highest `<n>.log` (or rotated `<n>.log.*`) in the container's log dir, so a
 * runtime that lost its state (a reboot) does not make a new container overwrite 0.log.
 */
export function restartCountFromLogDir(dir: string): number {
  try {
    if (!statSync(dir).isDirectory()) return 0;
  } catch {
    return 0;
  }
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const m = /^(\d+)\.log(\..*)?$/.exec(entry.name);
    if (m) count = Math.max(count, Number(m[1]) + 1);
  }
  return count;
}
