/**
 * Reads a container's CRI log file as the kubelet's ReadLogs does (pkg/kubelet/kuberuntime/logs):
 * tailLines counts lines of the file from its end, sinceTime drops older entries, the stream
 * filter keeps stdout, stderr or both, timestamps prefixes each entry with its time, limitBytes
 * cuts the output, and follow waits for more once the end is reached. While following, a file
 * that was rotated (a new file under the same path: another inode, or a smaller size) is read
 * from its start, and the read ends once the container no longer runs and nothing new was
 * written. A line that is not in the CRI format is skipped, as the kubelet skips it (it logs it).
 */
import { open, stat, type FileHandle } from "node:fs/promises";
import { parseCriLine, type LogStream } from "./cri-format.ts";

export interface LogOptions {
  follow: boolean;
  /** The last N lines of the file; undefined = all. */
  tailLines?: number;
  /** Entries at or after this time (ms since the epoch). */
  sinceMs?: number;
  timestamps: boolean;
  /** Stop after this many bytes; undefined = no limit. */
  limitBytes?: number;
  /** Which streams; undefined = both. */
  stream?: LogStream;
}

export interface FollowDeps {
  /** Waits before the next look at the file; rejects when the reader should stop. */
  wait(signal: AbortSignal): Promise<void>;
  /** Whether the container still runs: following ends once it does not and the file has no more. */
  isRunning(): Promise<boolean>;
  /** A line that is not in the CRI format (the kubelet logs and skips it). */
  onBadLine?(err: Error): void;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** Reads into `buf` from `position`; resolves to the bytes read (a FileHandle's read, narrowed). */
export type ReadAt = (buf: Uint8Array, position: number) => Promise<number>;

/** The block findTailStart reads at a time; the kubelet's tail reads 1 KiB. */
const TAIL_BLOCK = 8 * 1024;

/**
 * The byte offset where the last `n` lines of a file of `size` bytes start, read backwards a block
 * at a time (the kubelet's findTailLineStartIndex), so a tail of a large log reads a few blocks,
 * not the file. A final line without "\n" still counts as a line, as bunlet has always counted it.
 */
export async function findTailStart(readAt: ReadAt, size: number, n: number, blockSize = TAIL_BLOCK): Promise<number> {
  if (n <= 0) return size;
  const buf = new Uint8Array(blockSize);
  let seen = 0;
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - blockSize);
    const block = buf.subarray(0, end - start);
    let got = 0;
    while (got < block.length) {
      const read = await readAt(block.subarray(got), start + got);
      if (read === 0) break;
      got += read;
    }
    // A file that shrank under us: what is left is read from its start.
    if (got < block.length) return 0;
    for (let i = block.length - 1; i >= 0; i--) {
      if (block[i] !== NEWLINE || start + i === size - 1) continue;
      if (++seen === n) return start + i + 1;
    }
    end = start;
  }
  return 0;
}

/** The log's output, chunk by chunk. Ends at the end of the file, or (follow) when the container stopped. */
export async function* readContainerLog(path: string, opts: LogOptions, deps: FollowDeps, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  let file: FileHandle = await open(path, "r");
  let budget = opts.limitBytes ?? Number.POSITIVE_INFINITY;
  try {
    let offset = 0;
    if (opts.tailLines !== undefined) {
      const tailOf = file;
      const readAt: ReadAt = async (b, position) => (await tailOf.read(b, 0, b.length, position)).bytesRead;
      offset = await findTailStart(readAt, (await file.stat()).size, opts.tailLines);
    }
    let pending: Uint8Array = new Uint8Array(0);
    const buf = new Uint8Array(CHUNK);
    const encoder = new TextEncoder();
    while (!signal.aborted && budget > 0) {
      const { bytesRead } = await file.read(buf, 0, CHUNK, offset);
      if (bytesRead > 0) {
        offset += bytesRead;
        const data = join(pending, buf.subarray(0, bytesRead));
        const lastNewline = data.lastIndexOf(NEWLINE);
        pending = lastNewline < 0 ? data : data.slice(lastNewline + 1);
        if (lastNewline < 0) continue;
        for (const out of render(data.subarray(0, lastNewline), opts, deps, encoder)) {
          const piece = out.length > budget ? out.subarray(0, budget) : out;
          budget -= piece.length;
          yield piece;
          if (budget <= 0) return;
        }
        continue;
      }
      // At the end of the file.
      if (!opts.follow) {
        // The last line lacks its "\n" only while being written; the kubelet reads it as it is.
        if (pending.length > 0) {
          for (const out of render(pending, opts, deps, encoder)) {
            const piece = out.length > budget ? out.subarray(0, budget) : out;
            budget -= piece.length;
            yield piece;
          }
        }
        return;
      }
      const rotated = await rotatedFile(path, file, offset);
      if (rotated) {
        await file.close();
        file = rotated;
        offset = 0;
        pending = new Uint8Array(0);
        continue;
      }
      if (!(await deps.isRunning())) {
        // One more look: the container may have written its last lines as it exited.
        const { bytesRead: more } = await file.read(buf, 0, 1, offset);
        if (more === 0) return;
        continue;
      }
      try {
        await deps.wait(signal);
      } catch {
        return;
      }
    }
  } finally {
    await file.close();
  }
}

/** The entries of complete lines, filtered and rendered. */
function* render(lines: Uint8Array, opts: LogOptions, deps: FollowDeps, encoder: TextEncoder): Generator<Uint8Array> {
  let start = 0;
  while (start <= lines.length) {
    let end = lines.indexOf(NEWLINE, start);
    if (end < 0) end = lines.length;
    const line = lines.subarray(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    let msg;
    try {
      msg = parseCriLine(line);
    } catch (err) {
      deps.onBadLine?.(err as Error);
      continue;
    }
    if (opts.sinceMs !== undefined && msg.timeMs < opts.sinceMs) continue;
    if (opts.stream !== undefined && msg.stream !== opts.stream) continue;
    yield opts.timestamps ? join(encoder.encode(`${msg.time} `), msg.log) : msg.log;
  }
}

/** A new file under `path` (rotation), opened; undefined while `current` is still the file there. */
async function rotatedFile(path: string, current: FileHandle, offset: number): Promise<FileHandle | undefined> {
  let now;
  try {
    now = await stat(path);
  } catch {
    // Between the rename and the runtime's reopen there is no file: look again later.
    return undefined;
  }
  const mine = await current.stat();
  if (now.ino === mine.ino && now.dev === mine.dev && now.size >= offset) return undefined;
  try {
    return await open(path, "r");
  } catch {
    return undefined;
  }
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
