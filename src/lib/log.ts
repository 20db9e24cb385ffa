/**
 * Structured logging: `key=value` text (default) or JSON lines. Verbosity follows klog's --v:
 * info and above always print; debug(msg, fields, level) prints when level <= v.
 * Errors carry what failed, on what, and what bunlet does next, in fields, not in prose.
 */
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
  now?: () => number;
}

function formatValue(v: unknown): string {
  if (v instanceof Error) v = v.message;
  if (v === undefined) return "<nil>";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === "" || /[\s"=]/.test(s) ? JSON.stringify(s) : s;
}

function jsonValue(v: unknown): unknown {
  return v instanceof Error ? v.message : v;
}

export function createLogger(opts: LoggerOptions = {}, base: Fields = {}): Logger {
  const format = opts.format ?? "text";
  const verbosity = opts.verbosity ?? 0;
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const now = opts.now ?? (() => Date.now());

  const emit = (level: string, msg: string, fields: Fields = {}) => {
    const all = { ...base, ...fields };
    const ts = new Date(now()).toISOString();
    if (format === "json") {
      const rec: Fields = { ts, level, msg };
      for (const [k, v] of Object.entries(all)) rec[k] = jsonValue(v);
      write(JSON.stringify(rec));
      return;
    }
    let line = `ts=${ts} level=${level} msg=${formatValue(msg)}`;
    for (const [k, v] of Object.entries(all)) line += ` ${k}=${formatValue(v)}`;
    write(line);
  };

  return {
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    debug: (msg, fields, level = 4) => {
      if (level <= verbosity) emit("debug", msg, fields);
    },
    with: (fields) => createLogger(opts, { ...base, ...fields }),
  };
}

/** A logger that drops everything (tests) or records lines for assertions. */
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
