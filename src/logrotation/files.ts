/**
 * The file operations of log rotation: compressing a rotated log (gzip, through `<file>.tmp`, as
 * the kubelet's compressLog) so that a failure never leaves a file behind (kubernetes#102553:
 * the temporary file is removed whatever happens, and the original only once its .gz is in
 * place), listing a log's rotated files, and walking the pod logs directory for the node-wide cap.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { COMPRESS_SUFFIX, TMP_SUFFIX, type LogFile } from "./policy.ts";

/** `<log>.gz` from `<log>`; the original is removed once the compressed file is complete. */
export async function compressLog(log: string, signal?: AbortSignal): Promise<void> {
  const tmp = log + TMP_SUFFIX;
  try {
    await pipeline(createReadStream(log), createGzip(), createWriteStream(tmp, { mode: 0o644 }), { signal });
    await rename(tmp, log + COMPRESS_SUFFIX);
  } finally {
    await rm(tmp, { force: true });
  }
  await rm(log, { force: true });
}

/** The files named `<log>.*` beside `log` (full paths), as filepath.Glob(log + ".*"). */
export async function rotatedFilesOf(log: string): Promise<string[]> {
  const prefix = `${basename(log)}.`;
  const dir = dirname(log);
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [] as string[];
    throw err;
  });
  return names.filter((n) => n.startsWith(prefix)).map((n) => join(dir, n));
}

/** Every regular file under the pod logs directory, with `live` set for the given paths. */
export async function podLogFiles(podLogsDir: string, livePaths: ReadonlySet<string>): Promise<LogFile[]> {
  const out: LogFile[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // gone meanwhile (a pod's directory removed): nothing to count
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < 2) await walk(path, depth + 1);
      else if (e.isFile()) {
        const s = await stat(path).catch(() => undefined);
        if (s) out.push({ path, size: s.size, mtimeMs: s.mtimeMs, live: livePaths.has(path) });
      }
    }
  }
  await walk(podLogsDir, 0);
  return out;
}
