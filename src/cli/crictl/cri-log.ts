/**
 * The CRI container log format the runtime writes (kubelet's pkg/kubelet/kuberuntime/logs):
 * one entry per line, `<RFC3339Nano time> <stdout|stderr> <P|F> <content>`, where P marks a
 * partial line continued by the next entry and F a full one. Selecting entries (--since,
 * --stream, --tail) is pure; reading and following the file is logs.ts's business.
 */

export interface LogEntry {
  /** The timestamp as written (RFC3339Nano). */
  time: string;
  timeMs: number;
  stream: "stdout" | "stderr";
  partial: boolean;
  content: string;
}

/** One line of a CRI log file, or undefined when it is not in that format. */
export function parseCriLogLine(line: string): LogEntry | undefined {
  const m = /^(\S+) (stdout|stderr) ([PF])(?: (.*))?$/s.exec(line);
  if (!m) return undefined;
  const timeMs = Date.parse(m[1]);
  if (Number.isNaN(timeMs)) return undefined;
  return { time: m[1], timeMs, stream: m[2] as LogEntry["stream"], partial: m[3] === "P", content: m[4] ?? "" };
}

export interface SelectOptions {
  /** Only entries at or after this time (ms). */
  sinceMs?: number;
  stream?: "stdout" | "stderr";
  /** The last N lines; negative = all. */
  tail: number;
}

/** Applies --since, --stream and --tail (counting full lines, a partial one joining the next). */
export function selectEntries(entries: readonly LogEntry[], opts: SelectOptions): LogEntry[] {
  let kept = entries.filter((e) => (opts.sinceMs === undefined || e.timeMs >= opts.sinceMs) && (opts.stream === undefined || e.stream === opts.stream));
  if (opts.tail >= 0) {
    let lines = 0;
    let start = kept.length;
    for (let i = kept.length - 1; i >= 0; i--) {
      if (!kept[i].partial) {
        if (lines === opts.tail) break;
        lines++;
      }
      start = i;
    }
    if (opts.tail === 0) start = kept.length;
    kept = kept.slice(start);
  }
  return kept;
}

/** The bytes crictl writes for one entry: the content, "\n" for a full line, the time first with -t. */
export function renderEntry(e: LogEntry, timestamps: boolean): string {
  return `${timestamps ? `${e.time} ` : ""}${e.content}${e.partial ? "" : "\n"}`;
}

/**
 * --since: an RFC3339 time, or a Go duration back from now ("42m"). Throws an Error naming the
 * value when it is neither.
 */
export function parseSince(value: string, nowMs: number): number {
  const abs = Date.parse(value);
  if (/^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(abs)) return abs;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = value;
  if (rest === "") throw new Error(`invalid since value ${JSON.stringify(value)}`);
  while (rest !== "") {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (!m) throw new Error(`invalid since value ${JSON.stringify(value)}: expected an RFC3339 time or a duration such as 42m`);
    total += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return nowMs - total;
}
