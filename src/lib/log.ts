/**
 * The kubelet's log formats, so tooling built for kubelet logs reads bunlet's.
 *
 * text (klog): `I1123 20:11:00.123456    1234 wire.ts:88] "Message" err="…" key="value"`, severity
 * I/W/E, local month-day and time, the pid right-aligned in 7 characters, the calling source
 * file and line, the message quoted, then `err` and the other keys as klog's structured logging
 * writes them (log-values.ts).
 * json (component-base): `{"ts":1700000000123.456,"caller":"wire.ts:88","msg":"…","v":0,"err":"…",…}`,
 * ts in float milliseconds since the epoch like component-base, `v` the verbosity of an info
 * line (absent on errors), then `err`, then the keys.
 *
 * Verbosity follows klog's --v: info, warnings and errors always print; debug(msg, fields, level)
 * prints when level <= v. A key whose value is undefined is left out. Errors carry what failed,
 * on what, and what bunlet does next, in fields, not in prose.
 */
import { jsonReplacer, klogPair, goQuote } from "./log-values.ts";
import { createLogTime } from "./log-time.ts";

export type LogFormat = "text" | "json";
export type Fields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** Verbose detail shown when --v >= level (default 4, klog's debug level). */
  debug(msg: string, fields?: Fields, level?: number): void;
  /** A logger that adds fields to every line. */
  with(fields: Fields): Logger;
}

export interface LoggerOptions {
  format?: LogFormat;
  verbosity?: number;
  write?: (line: string) => void;
  /** Wall-clock time in milliseconds since the epoch, with a microsecond fraction (log-time.ts). */
  now?: () => number;
  /** klog's thread id column; bunlet writes its pid there. */
  pid?: number;
}

type Severity = "I" | "W" | "E";

/** One time source for every logger of the process (loggers made by with() share it too). */
const defaultLogTime = createLogTime();

/**
 * `file.ts:line` of the code that called the logger. The binary embeds its source map
 * (scripts/build.sh), so stack frames name the TypeScript source; klog writes `???:1` when the
 * caller is unknown, and so does bunlet. JavaScriptCore drops the frame of a function that ends in
 * a tail call, so `(err) => log.error(…)` would name its caller: callbacks that log use a block body.
 */
function callerOf(method: (...args: never[]) => unknown): string {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, method);
  const frame = holder.stack?.split("\n").find((l) => l.trimStart().startsWith("at ")) ?? "";
  const m = /([^\s/\\()]+):(\d+):\d+\)?\s*$/.exec(frame);
  return m ? `${m[1]}:${m[2]}` : "???:1";
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** klog's header: `I1123 20:11:00.123456    1234 file.ts:88] `, in local time. */
function klogHeader(sev: Severity, ms: number, pid: number, caller: string): string {
  // In whole microseconds (an exact integer below 2^53), so float error cannot change a digit.
  const us = Math.round(ms * 1000);
  const d = new Date(Math.floor(us / 1000));
  const micros = us % 1_000_000;
  const date = `${pad(d.getMonth() + 1)}${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(micros, 6)}`;
  return `${sev}${date} ${time} ${String(pid).padStart(7)} ${caller}] `;
}

/** err first (klog's ErrorS and component-base both put it first), then base, then call fields. */
function orderedFields(base: Fields, fields: Fields): [string, unknown][] {
  const all = { ...base, ...fields };
  const entries = Object.entries(all).filter(([k, v]) => k !== "err" && v !== undefined);
  return all.err === undefined ? entries : [["err", all.err], ...entries];
}

export function createLogger(opts: LoggerOptions = {}, base: Fields = {}): Logger {
  const format = opts.format ?? "text";
  const verbosity = opts.verbosity ?? 0;
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const now = opts.now ?? defaultLogTime;
  const pid = opts.pid ?? process.pid;

  const emit = (sev: Severity, v: number, caller: string, msg: string, fields: Fields = {}) => {
    const ms = now();
    const pairs = orderedFields(base, fields);
    if (format === "json") {
      const rec: Fields = { ts: ms, caller, msg };
      if (sev !== "E") rec.v = v;
      for (const [k, value] of pairs) if (!(k in rec)) rec[k] = value;
      write(JSON.stringify(rec, jsonReplacer));
      return;
    }
    write(klogHeader(sev, ms, pid, caller) + goQuote(msg) + pairs.map(([k, value]) => klogPair(k, value)).join(""));
  };

  const logger: Logger = {
    info: function info(msg, fields) {
      emit("I", 0, callerOf(info), msg, fields);
    },
    warn: function warn(msg, fields) {
      emit("W", 0, callerOf(warn), msg, fields);
    },
    error: function error(msg, fields) {
      emit("E", 0, callerOf(error), msg, fields);
    },
    debug: function debug(msg, fields, level = 4) {
      if (level <= verbosity) emit("I", level, callerOf(debug), msg, fields);
    },
    with: (fields) => createLogger(opts, { ...base, ...fields }),
  };
  return logger;
}

/** A logger that records lines for assertions: `{ level, msg, ...fields }`. */
export function createMemoryLogger(): Logger & { lines: Fields[] } {
  const lines: Fields[] = [];
  const make = (base: Fields): Logger => {
    const push = (level: string) => (msg: string, fields: Fields = {}) => {
      lines.push({ level, msg, ...base, ...fields });
    };
    return {
      info: push("info"),
      warn: push("warn"),
      error: push("error"),
      debug: (msg, fields) => push("debug")(msg, fields),
      with: (fields) => make({ ...base, ...fields }),
    };
  };
  return Object.assign(make({}), { lines });
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  with: () => silentLogger,
};
