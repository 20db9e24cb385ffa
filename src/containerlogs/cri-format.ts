/**
 * One line of a CRI container log file (the format containerd writes and the kubelet's
 * pkg/kubelet/kuberuntime/logs reads): `<RFC3339Nano time> <stdout|stderr> <tags> <content>`.
 * The first tag is P for a partial line (the next entry continues it) or F for a full one; the
 * content of a full line gets its "\n" back when written out.
 */

export type LogStream = "stdout" | "stderr";

export interface LogMessage {
  /** The timestamp as written. */
  time: string;
  timeMs: number;
  stream: LogStream;
  partial: boolean;
  /** The content, with "\n" appended for a full line. */
  log: Uint8Array;
}

const SPACE = 0x20;
const NEWLINE = new Uint8Array([0x0a]);

/** Parses one line (without its trailing "\n"); throws an Error naming what is wrong. */
export function parseCriLine(line: Uint8Array): LogMessage {
  const decoder = new TextDecoder();
  const first = line.indexOf(SPACE);
  if (first < 0) throw new Error("timestamp is not found");
  const time = decoder.decode(line.subarray(0, first));
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) throw new Error(`unexpected timestamp format ${JSON.stringify(time)}`);
  const second = line.indexOf(SPACE, first + 1);
  if (second < 0) throw new Error("stream type is not found");
  const stream = decoder.decode(line.subarray(first + 1, second));
  if (stream !== "stdout" && stream !== "stderr") throw new Error(`unexpected stream type ${JSON.stringify(stream)}`);
  const third = line.indexOf(SPACE, second + 1);
  // A full line with empty content may be written without the separating space.
  const tagEnd = third < 0 ? line.length : third;
  const tags = decoder.decode(line.subarray(second + 1, tagEnd)).split(":");
  const partial = tags[0] === "P";
  const content = third < 0 ? new Uint8Array(0) : line.subarray(third + 1);
  const log = partial ? content : concat(content, NEWLINE);
  return { time, timeMs, stream, partial, log };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
