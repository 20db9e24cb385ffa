/**
 * The termination message of an exited container (convertToKubeContainerStatus): the file the
 * container wrote at its terminationMessagePath (bind-mounted from the pod dir), or with
 * FallbackToLogsOnError and a failure, the tail of its CRI log.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ContainerStatus as CriContainerStatus } from "../cri/index.ts";
import { containerInfoFromAnnotations } from "../container/index.ts";

/** kubecontainer.MaxContainerTerminationMessageLength. */
const MAX_TERMINATION_MESSAGE_BYTES = 4096;
/** MaxContainerTerminationMessageLogLength / LogLines. */
const MAX_TERMINATION_LOG_BYTES = 2048;
const MAX_TERMINATION_LOG_LINES = 80;

/** The last maxBytes of a file, or undefined when it does not exist. */
function readTail(path: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * The messages of the last lines of a CRI log ("<time> <stream> <P|F> <text>"), partial lines
 * joined, capped to the last 2048 bytes.
 */
export function lastLogMessage(path: string): string {
  let raw: string | undefined;
  try {
    raw = readTail(path, 1 << 20);
  } catch (err) {
    return `Error on reading termination message from logs: ${(err as Error).message}`;
  }
  if (raw === undefined) return "";
  let out = "";
  const lines = raw.split("\n").filter((l) => l !== "");
  for (const line of lines.slice(-MAX_TERMINATION_LOG_LINES)) {
    const parts = line.split(" ");
    if (parts.length < 3) continue;
    const text = parts.slice(3).join(" ");
    out += parts[2] === "P" ? text : `${text}\n`;
  }
  const bytes = Buffer.from(out);
  return bytes.length > MAX_TERMINATION_LOG_BYTES ? bytes.subarray(bytes.length - MAX_TERMINATION_LOG_BYTES).toString() : out;
}

/** The message to append to an exited container's status message ("" when none). */
export function terminationMessage(status: CriContainerStatus, exitCode: number, reason: string): string {
  const info = containerInfoFromAnnotations(status.annotations);
  // A container that could not even start has no logs to fall back to.
  const fallbackToLogs = info.terminationMessagePolicy === "FallbackToLogsOnError" && exitCode !== 0 && reason !== "ContainerCannotRun";
  let checkLogs = fallbackToLogs;
  let message = "";
  const mount = info.terminationMessagePath ? status.mounts.find((m) => m.containerPath === info.terminationMessagePath) : undefined;
  if (mount) {
    try {
      const data = readTail(mount.hostPath, MAX_TERMINATION_MESSAGE_BYTES);
      if (data !== undefined) {
        message = data;
        checkLogs = fallbackToLogs && data.length === 0;
      }
    } catch (err) {
      return `Error on reading termination log ${mount.hostPath}: ${(err as Error).message}`;
    }
  }
  return checkLogs ? lastLogMessage(status.logPath) : message;
}
