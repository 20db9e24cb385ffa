/**
 * The container log manager's decisions, pure: which files of a container's log to clean up,
 * remove and compress before rotating (the kubelet's cleanupUnusedLogs, removeExcessLogs and the
 * compression step of rotateLog), the rotated file's name, when to look at a log again, and which
 * files a node-wide cap on pod logs removes.
 */

/** The kubelet's timestampFormat ("20060102-150405"), in local time as Go's time.Now().Format. */
export function rotatedLogName(log: string, nowMs: number): string {
  const d = new Date(nowMs);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${log}.${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/**
 * The name for a rotation at nowMs that no existing file uses: the kubelet's name, or, when a
 * rotation already took that second (a fast writer with a small containerLogMaxSize), the same
 * name with the milliseconds appended. The kubelet reuses the name and overwrites the earlier file.
 */
export function freeRotatedLogName(log: string, nowMs: number, existing: readonly string[]): string | undefined {
  const base = rotatedLogName(log, nowMs);
  if (!rotationNameTaken(base, existing)) return base;
  const withMs = `${base}.${String(nowMs % 1000).padStart(3, "0")}`;
  return rotationNameTaken(withMs, existing) ? undefined : withMs;
}

/** Age order of rotated files: by the timestamp (and milliseconds) in the name; other names first, by name. */
function ageKey(file: string): string {
  const m = /\.(\d{8}-\d{6})(?:\.(\d{3}))?(?:\.gz)?(?:\.tmp)?$/.exec(file);
  return m ? `1 ${m[1]}.${m[2] ?? "000"}` : `0 ${file}`;
}

export const COMPRESS_SUFFIX = ".gz";
export const TMP_SUFFIX = ".tmp";

export interface RotationPlan {
  /** Leftovers of an interrupted compression: temporary files, and originals whose .gz exists. */
  unused: string[];
  /** The oldest rotated files beyond containerLogMaxFiles - 2 (the current file and the one being rotated). */
  excess: string[];
  /** Rotated files still to compress (all that remain uncompressed, before the latest is rotated). */
  compress: string[];
}

/**
 * What to do with `rotated` (the files matching `<log>.*`) before `<log>` itself is rotated, as
 * the kubelet's rotateLog: drop unused files, keep at most maxFiles - 2 rotated files (removing
 * from the oldest, so a reader of a newer one is not broken), compress what is left uncompressed.
 */
export function planRotation(rotated: readonly string[], maxFiles: number): RotationPlan {
  const set = new Set(rotated);
  const unused = rotated.filter((f) => f.endsWith(TMP_SUFFIX) || (!f.endsWith(COMPRESS_SUFFIX) && set.has(f + COMPRESS_SUFFIX)));
  const used = rotated.filter((f) => !unused.includes(f)).sort((a, b) => ageKey(a).localeCompare(ageKey(b)) || a.localeCompare(b));
  const keep = Math.max(maxFiles - 2, 0);
  const cut = Math.max(used.length - keep, 0);
  const kept = used.slice(cut);
  return { unused, excess: used.slice(0, cut), compress: kept.filter((f) => !f.endsWith(COMPRESS_SUFFIX)) };
}

/** Whether a rotated name is used already, plain or gzipped (renaming onto it would lose a file). */
function rotationNameTaken(rotatedName: string, existing: readonly string[]): boolean {
  return existing.includes(rotatedName) || existing.includes(rotatedName + COMPRESS_SUFFIX);
}

/** The shortest time between two looks at one container's log. */
const MIN_CHECK_INTERVAL_MS = 100;
/** The first look after one that measured no rate (a new log, an empty one, one just rotated). */
const NO_RATE_RECHECK_MS = 500;

/**
 * When to look at a log again. The kubelet looks every containerLogMonitorInterval, so a writer
 * of 6 MB/s grows a 10 MiB log far past its limit between two looks (kubernetes#110630). bunlet
 * measures how fast the log grew since the last look and looks again when, at that rate, half of
 * the room left would be used: soon for a fast writer, every monitor interval for a quiet one.
 * Where there is no rate yet (the first look, a log still empty) it looks again after twice the
 * time since the last look, from 500 ms up to the monitor interval: a new writer is measured
 * within a second, and a container that never writes costs a look a monitor interval, not two a
 * second (250 such containers made 500 stat calls a second).
 */
export function nextCheckDelayMs(opts: { size: number; previousSize?: number; elapsedMs: number; maxSize: number; monitorIntervalMs: number }): number {
  const { size, previousSize, elapsedMs, maxSize, monitorIntervalMs } = opts;
  const ceiling = Math.max(monitorIntervalMs, MIN_CHECK_INTERVAL_MS);
  if (previousSize === undefined || size === 0) return Math.min(Math.max(2 * elapsedMs, NO_RATE_RECHECK_MS), ceiling);
  if (elapsedMs <= 0 || size <= previousSize) return ceiling;
  const bytesPerMs = (size - previousSize) / elapsedMs;
  const room = Math.max(maxSize - size, 0);
  const delay = room / bytesPerMs / 2;
  return Math.min(Math.max(Math.floor(delay), MIN_CHECK_INTERVAL_MS), ceiling);
}

export interface LogFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** The current log of a running container: never removed by the cap. */
  live: boolean;
}

/**
 * The node-wide cap on pod logs (bunlet's podLogsMaxTotalSize): when all files under podLogsDir
 * hold more than `cap` bytes, remove files that are not a running container's current log, oldest
 * first, until the rest fits. `over` is what is still above the cap when only live logs are left.
 */
export function planLogCap(files: readonly LogFile[], cap: number): { remove: string[]; over: number } {
  let total = files.reduce((sum, f) => sum + f.size, 0);
  const remove: string[] = [];
  if (cap <= 0 || total <= cap) return { remove, over: 0 };
  const candidates = files.filter((f) => !f.live).sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
  for (const f of candidates) {
    if (total <= cap) break;
    remove.push(f.path);
    total -= f.size;
  }
  return { remove, over: Math.max(total - cap, 0) };
}
