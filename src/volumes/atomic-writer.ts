/**
 * The kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go): the files of a configMap, secret,
 * projected or downwardAPI volume are written into a fresh timestamped directory
 * (`..2026_01_01_00_00_00.123456789`), and the `..data` symlink is switched to it with one
 * rename(2), so a container reading the volume sees the old set of files or the new one, never a
 * mix. The names a user sees (`<key>`) are symlinks through `..data`, made once and removed when a
 * key leaves the payload. Nothing is rewritten when the payload equals what is there.
 */
import { chmodSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

const DATA_DIR_NAME = "..data";
const NEW_DATA_DIR_NAME = "..data_tmp";
const MAX_PATH_LENGTH = 4096;
const MAX_FILE_NAME_LENGTH = 255;

/** One file of a volume: its bytes, its permission bits and, for projected tokens, its owner. */
export interface FileProjection {
  data: Uint8Array;
  mode: number;
  fsUser?: number;
}

export type Payload = Map<string, FileProjection>;

export class PayloadPathError extends Error {
  override readonly name = "PayloadPathError";
}

/** validatePath: relative, no "..", no element starting with "..", within the length limits. */
export function validatePayloadPath(path: string): void {
  if (path.length > MAX_PATH_LENGTH) throw new PayloadPathError(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  if (isAbsolute(path)) throw new PayloadPathError(`invalid path: must be relative path: ${path}`);
  const items = path.split("/");
  for (const item of items) {
    if (item === "..") throw new PayloadPathError(`invalid path: must not contain '..': ${path}`);
    if (item.length > MAX_FILE_NAME_LENGTH) throw new PayloadPathError(`invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} characters`);
  }
  if (items[0].startsWith("..") && items[0].length > 2) throw new PayloadPathError(`invalid path: must not start with '..': ${path}`);
}

/** Go's time.Format("..2006_01_02_15_04_05.") of the given instant, in UTC. */
function timestampPrefix(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `..${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}.`;
}

/** The timestamped directory `..data` points at, or undefined when there is none yet. */
function currentDataDir(targetDir: string): string | undefined {
  try {
    const link = readlinkSync(join(targetDir, DATA_DIR_NAME));
    return join(targetDir, link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Every regular file below dir, as paths relative to it. */
function filesBelow(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...filesBelow(dir, rel));
    else out.push(rel);
  }
  return out;
}

function unchanged(oldDir: string, payload: Payload): boolean {
  const present = filesBelow(oldDir);
  if (present.length !== payload.size) return false;
  for (const [path, file] of payload) {
    const full = join(oldDir, path);
    try {
      const st = lstatSync(full);
      if (!st.isFile() || (st.mode & 0o7777) !== file.mode) return false;
      if (file.fsUser !== undefined && st.uid !== file.fsUser) return false;
      if (!Buffer.from(file.data).equals(readFileSync(full))) return false;
    } catch {
      return false;
    }
  }
  return true;
}

export interface WriteResult {
  /** false when the payload equalled the current data and nothing was touched. */
  written: boolean;
}

/**
 * Write makes targetDir hold exactly the payload. `now` names the new data directory (the
 * caller's clock). Paths are validated first; a bad one throws PayloadPathError before anything
 * is written.
 */
export function writeAtomically(targetDir: string, payload: Payload, now: number): WriteResult {
  for (const path of payload.keys()) validatePayloadPath(path);
  const oldDir = currentDataDir(targetDir);
  if (oldDir !== undefined && unchanged(oldDir, payload)) return { written: false };
  const oldPaths = oldDir === undefined ? [] : filesBelow(oldDir);

  const tsDir = mkdtempSync(join(targetDir, timestampPrefix(now)));
  chmodSync(tsDir, 0o755);
  try {
    for (const [path, file] of payload) {
      const full = join(tsDir, path);
      mkdirSync(dirname(full), { recursive: true, mode: 0o755 });
      writeFileSync(full, file.data, { mode: file.mode });
      // The umask narrowed the mode given to open(2).
      chmodSync(full, file.mode);
      if (file.fsUser !== undefined) lchownSync(full, file.fsUser, -1);
    }
  } catch (err) {
    rmSync(tsDir, { recursive: true, force: true });
    throw err;
  }

  // The user-visible names: one symlink per top-level element, through ..data.
  const tops = new Set([...payload.keys()].map((p) => p.split("/")[0]));
  for (const top of tops) {
    const visible = join(targetDir, top);
    if (!exists(visible)) symlinkSync(join(DATA_DIR_NAME, top), visible);
  }

  const tmpLink = join(targetDir, NEW_DATA_DIR_NAME);
  rmSync(tmpLink, { force: true });
  symlinkSync(tsDir.slice(targetDir.length + 1), tmpLink);
  renameSync(tmpLink, join(targetDir, DATA_DIR_NAME));

  // Names that left the payload lose their symlink; then the old data directory goes.
  for (const top of new Set(oldPaths.map((p) => p.split("/")[0]))) {
    if (!tops.has(top)) rmSync(join(targetDir, top), { force: true });
  }
  if (oldDir !== undefined) rmSync(oldDir, { recursive: true, force: true });
  return { written: true };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
