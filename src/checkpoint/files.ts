/**
 * The checkpoint's files on disk. Each is one JSON document `{"kind": ..., "items": [...]}`
 * written atomically (a temp file in the same directory, fsync, rename, fsync of the directory),
 * so a crash or a power cut leaves the old file or the new one, never half of one. A file whose
 * bytes would not change is not written at all: edge nodes run on SD cards, and a rewrite of the
 * same bytes is wear for nothing.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../lib/index.ts";

/** The on-disk form of every checkpoint file. */
interface CheckpointDocument {
  kind: string;
  items: unknown[];
}

/** The items of a checkpoint file and its bytes as read; undefined when there is no usable file. */
export interface ReadResult {
  items: unknown[];
  text: string;
}

/**
 * Reads one checkpoint file. A missing file is "nothing kept"; a file that is not a checkpoint
 * document of the expected kind (a torn write by another tool, a disk error) is logged once and
 * ignored, and the next change of the desired state rewrites it.
 */
export function readCheckpointFile(path: string, kind: string, log: Logger): ReadResult | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    log.error("Could not read a checkpoint file; starting without it, and it is rewritten at the next change", { path, err });
    return undefined;
  }
  try {
    const doc = JSON.parse(text) as CheckpointDocument;
    if (doc === null || typeof doc !== "object" || doc.kind !== kind || !Array.isArray(doc.items)) {
      throw new Error(`expected a document of kind ${JSON.stringify(kind)} with an items list`);
    }
    return { items: doc.items, text };
  } catch (err) {
    log.error("Ignoring a corrupt checkpoint file; it is rewritten at the next change", { path, err });
    return undefined;
  }
}

/** The bytes of a checkpoint file holding `items` (already in a stable order). */
export function checkpointText(kind: string, items: unknown[]): string {
  return `${JSON.stringify({ kind, items })}\n`;
}

/** The same bytes as checkpointText, from each item's JSON (JSON.stringify of an array joins its items' JSON with commas). */
export function checkpointTextOf(kind: string, itemsJSON: string[]): string {
  return `{"kind":${JSON.stringify(kind)},"items":[${itemsJSON.join(",")}]}\n`;
}

/** Writes `text` to `path` atomically with the given mode (0600 for every checkpoint file). */
export function writeFileAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp`;
  // A temp file left by a crash keeps its mode when reopened: start from none.
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  // The rename is durable only once the directory entry is.
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
