/**
 * The kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go): the files of a configMap, secret,
 * projected or downwardAPI volume are written into a fresh timestamped directory
 * (`..2026_01_01_00_00_00.123456789`), and the `..data` symlink is switched to it with one
 * rename(2), so a container reading the volume sees the old set of files or the new one, never a
 * mix. The names a user sees (`<key>`) are symlinks through `..data`, made once and removed when a
 * key leaves the payload. Nothing is rewritten when the payload equals what is there.
 *
 * Beyond the kubelet, which relies on the read-only mount alone (CVE-2017-1002102): nothing the
 * volume holds is trusted (atomic-writer-fs.ts). A `..data` that is not the writer's link to a
 * sibling data directory, or a visible name that is not its link, is reported in `found` and
 * repaired: the data is written again and the links restored. Nothing outside the volume
 * directory is ever removed or written.
 */
import { mkdtempSync, renameSync, symlinkSync } from "node:fs";
import { isAbsolute, join, posix } from "node:path";
import {
  chmodDir,
  createFile,
  DATA_DIR_NAME,
  entriesOf,
  holdsPayload,
  isDataDirName,
  NEW_DATA_DIR_NAME,
  readDataLink,
  removeEntry,
  visibleLinkTarget,
  visibleNameProblem,
} from "./atomic-writer-fs.ts";

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

export interface WriteResult {
  /** false when the payload equalled the current data and nothing was touched. */
  written: boolean;
  /** What was not as the writer left it (a container tampered with the volume), now repaired. */
  found: string[];
}

/**
 * Write makes targetDir hold exactly the payload. `now` names the new data directory (the
 * caller's clock). Paths are validated first; a bad one throws PayloadPathError before anything
 * is written.
 */
export function writeAtomically(targetDir: string, rawPayload: Payload, now: number): WriteResult {
  const payload: Payload = new Map();
  for (const [path, file] of rawPayload) {
    validatePayloadPath(path);
    payload.set(posix.normalize(path).replace(/\/+$/, ""), file);
  }
  const found: string[] = [];
  const link = readDataLink(targetDir);
  if (link.kind === "untrusted") found.push(link.found);
  const entries = entriesOf(targetDir);
  if (link.kind === "none" && entries.some((name) => isDataDirName(name))) found.push(`${DATA_DIR_NAME} is missing`);

  const tops = new Set([...payload.keys()].map((p) => p.split("/")[0]));
  for (const top of tops) {
    const problem = visibleNameProblem(targetDir, top);
    if (problem !== undefined) found.push(problem);
  }

  const current = link.kind === "ok" ? link.dir : undefined;
  const write = current === undefined || !holdsPayload(join(targetDir, current), payload);
  let published = current;
  if (write) published = publish(targetDir, payload, now);

  // The user-visible names: one symlink per top-level element, through ..data; a name a
  // container replaced is put back.
  for (const top of tops) {
    if (visibleNameProblem(targetDir, top) !== undefined) removeEntry(targetDir, top);
    if (!entriesOf(targetDir).includes(top)) symlinkSync(visibleLinkTarget(top), join(targetDir, top));
  }
  // Links the writer made for names that left the payload go, then every other data directory
  // (the previous one, and any left by a crash or planted by a container).
  for (const name of entries) {
    if (name === DATA_DIR_NAME || tops.has(name)) continue;
    if (isDataDirName(name) && name !== published) removeEntry(targetDir, name);
    else if (visibleNameProblem(targetDir, name) === undefined && !name.startsWith("..")) removeEntry(targetDir, name);
  }
  return { written: write, found };
}

/** Writes the payload into a new data directory and switches `..data` to it; returns its name. */
function publish(targetDir: string, payload: Payload, now: number): string {
  const tsDir = mkdtempSync(join(targetDir, timestampPrefix(now)));
  const tsName = tsDir.slice(targetDir.length + 1);
  try {
    chmodDir(tsDir, 0o755);
    for (const [path, file] of payload) createFile(tsDir, path, file.data, file.mode, file.fsUser);
  } catch (err) {
    removeEntry(targetDir, tsName);
    throw err;
  }
  removeEntry(targetDir, NEW_DATA_DIR_NAME);
  symlinkSync(tsName, join(targetDir, NEW_DATA_DIR_NAME));
  // rename(2) replaces a symlink or a file at ..data; a directory planted there must go first.
  if (readDataLink(targetDir).kind === "untrusted") removeEntry(targetDir, DATA_DIR_NAME);
  renameSync(join(targetDir, NEW_DATA_DIR_NAME), join(targetDir, DATA_DIR_NAME));
  return tsName;
}
