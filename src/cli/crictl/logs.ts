/**
 * `crictl logs`: reads the container's log file (the path ContainerStatus reports) in the CRI
 * log format and writes each entry to stdout or stderr as it was written, with crictl's
 * --tail, --since, --timestamps, --limit-bytes, --stream, --previous and --follow. Following polls
 * the file and ends once the container is no longer running and nothing new was written.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ContainerState } from "../../cri/index.ts";
import { delay, realClock } from "../../lib/index.ts";
import { UsageError } from "./args.ts";
import { parseCriLogLine, parseSince, renderEntry, selectEntries, type LogEntry } from "./cri-log.ts";
import type { Command } from "./command.ts";

const FOLLOW_POLL_MS = 200;
const STATUS_EVERY_POLLS = 5;

/** Reads the bytes of `path` from `offset`; returns the complete lines and the new offset. */
function readLines(path: string, offset: number): { lines: string[]; offset: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new Error(`failed to open log file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  try {
    const size = statSync(path).size;
    if (size <= offset) return { lines: [], offset: size < offset ? 0 : offset };
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) return { lines: [], offset };
    return { lines: buf.subarray(0, end).toString("utf8").split("\n"), offset: offset + end + 1 };
  } finally {
    closeSync(fd);
  }
}

/** The previous instance's log: `<n>.log` → `<n-1>.log` in the same directory. */
function previousLogPath(path: string): string {
  const m = /(\d+)\.log$/.exec(path);
  if (!m || Number(m[1]) === 0) throw new Error(`container has no previous instance (log file ${path})`);
  return join(dirname(path), `${Number(m[1]) - 1}.log`);
}

export const logsCommand: Command = {
  name: "logs",
  usage: "Fetch the logs of a container",
  argsUsage: "CONTAINER-ID",
  flags: [
    { name: "follow", alias: "f", kind: "bool", usage: "Follow log output" },
    { name: "previous", alias: "p", kind: "bool", usage: "Print the logs for the previous instance of the container in a pod if it exists" },
    { name: "since", kind: "string", usage: "Show logs since timestamp (e.g. 2013-01-02T13:23:37Z) or relative (e.g. 42m for 42 minutes)" },
    { name: "tail", kind: "int", usage: "Number of lines to show from the end of the logs. Defaults to all (default: -1)" },
    { name: "timestamps", alias: "t", kind: "bool", usage: "Show timestamps" },
    { name: "limit-bytes", kind: "int", usage: "Maximum bytes of logs to return. Defaults to no limit (default: -1)" },
    { name: "stream", kind: "string", usage: "Only print logs from a specific stream ('stdout' or 'stderr')" },
  ],
  async run(ctx, parsed) {
    const id = parsed.args[0];
    if (id === undefined || parsed.args.length > 1) throw new UsageError("logs takes exactly one CONTAINER-ID");
    const stream = parsed.strings.get("stream");
    if (stream !== undefined && stream !== "stdout" && stream !== "stderr") throw new UsageError(`--stream must be stdout or stderr, found ${JSON.stringify(stream)}`);
    const since = parsed.strings.get("since");
    let sinceMs: number | undefined;
    try {
      sinceMs = since === undefined ? undefined : parseSince(since, ctx.now());
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const res = await ctx.cri.runtime.containerStatus({ containerId: id }, { signal: ctx.signal });
    let path = res.status?.logPath ?? "";
    if (path === "") throw new Error(`the container ${id} has no log file`);
    if (parsed.bools.has("previous")) path = previousLogPath(path);

    let budget = parsed.ints.get("limit-bytes") ?? -1;
    const timestamps = parsed.bools.has("timestamps");
    const write = (entries: LogEntry[]) => {
      for (const e of entries) {
        if (budget === 0) return;
        let text = renderEntry(e, timestamps);
        if (budget > 0) {
          const bytes = Buffer.from(text);
          if (bytes.length > budget) text = bytes.subarray(0, budget).toString("utf8");
          budget -= Math.min(bytes.length, budget);
        }
        (e.stream === "stderr" ? ctx.err : ctx.out)(text);
      }
    };
    const parse = (lines: string[]) => lines.map(parseCriLogLine).filter((e): e is LogEntry => e !== undefined);

    let { lines, offset } = readLines(path, 0);
    write(selectEntries(parse(lines), { sinceMs, stream: stream as LogEntry["stream"] | undefined, tail: parsed.ints.get("tail") ?? -1 }));
    if (!parsed.bools.has("follow") || parsed.bools.has("previous")) return 0;

    for (let polls = 1; await delay(realClock, FOLLOW_POLL_MS, ctx.signal); polls++) {
      ({ lines, offset } = readLines(path, offset));
      write(selectEntries(parse(lines), { sinceMs, stream: stream as LogEntry["stream"] | undefined, tail: -1 }));
      if (budget === 0) return 0;
      if (lines.length === 0 && polls % STATUS_EVERY_POLLS === 0) {
        // An interrupt that lands during this check ends the follow as one during the wait does.
        const now = await ctx.cri.runtime.containerStatus({ containerId: id }, { signal: ctx.signal }).catch((err: unknown) => {
          if (ctx.signal.aborted) return undefined;
          throw err;
        });
        if (now === undefined || now.status?.state !== ContainerState.CONTAINER_RUNNING) return 0;
      }
    }
    return 0;
  },
};
