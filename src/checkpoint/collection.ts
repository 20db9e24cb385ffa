/**
 * One kind of object in the checkpoint (pods, ConfigMaps, Secrets, tokens, Services): the copy in
 * memory, keyed, and the file it is persisted to. prune() keeps only what `keep` says the pods
 * reference, and drops the largest objects first when the file would pass its size limit, naming
 * them in one log line (only when what is dropped changes, not at every write); write() writes the
 * file only when its bytes change.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../lib/index.ts";
import { checkpointText, checkpointTextOf, readCheckpointFile, writeFileAtomic } from "./files.ts";
import type { Writable } from "./writes.ts";

export interface CollectionOptions<T> {
  path: string;
  /** The document kind in the file. */
  kind: string;
  /** The key of an item read back from the file. */
  keyOf(item: T): string;
  maxBytes: number;
  log: Logger;
}

const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** 0600 files in 0700 directories: Secrets and tokens are in here, and pods carry env values. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export class Collection<T> implements Writable {
  readonly #opts: CollectionOptions<T>;
  readonly #items = new Map<string, T>();
  /** The bytes the file holds (as read at start or last written); undefined = no file. */
  #written: string | undefined;
  #lastDropped = "";
  /** True once a file was read or the items recorded: distinguishes "no checkpoint" from "checkpoint of nothing". */
  #present = false;
  /**
   * Each item's JSON, by item: an item is never changed in place (a change is a new object), and
   * the apiserver source records the whole snapshot at every watch event, so without this every
   * event would serialise every pod on the node again.
   */
  readonly #json = new WeakMap<object, string>();

  constructor(opts: CollectionOptions<T>) {
    this.#opts = opts;
    const read = readCheckpointFile(opts.path, opts.kind, opts.log);
    if (read === undefined) return;
    for (const item of read.items) this.#items.set(opts.keyOf(item as T), item as T);
    this.#written = read.text;
    this.#present = true;
  }

  get present(): boolean {
    return this.#present;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  values(): T[] {
    return [...this.#items.values()];
  }

  set(key: string, item: T | undefined): void {
    if (item === undefined) this.#items.delete(key);
    else this.#items.set(key, item);
  }

  /** Replaces every item (a full snapshot, as the apiserver source sends). */
  replaceAll(items: Map<string, T>): void {
    this.#items.clear();
    for (const [k, v] of items) this.#items.set(k, v);
  }

  /**
   * Drops what `keep` rejects and bounds the size, in memory; write() (at once, or with the
   * checkpoint's other changes of the same second) puts the result in the file.
   */
  prune(keep: (key: string, item: T) => boolean): void {
    const { kind, maxBytes, log } = this.#opts;
    for (const [key, item] of this.#items) if (!keep(key, item)) this.#items.delete(key);
    const sizes = new Map([...this.#items].map(([key, item]) => [key, this.#jsonOf(item).length + 1]));
    const envelope = checkpointText(kind, []).length;
    let total = envelope + [...sizes.values()].reduce((a, b) => a + b, 0);
    const dropped: string[] = [];
    // Largest first (then by key, so the same set is dropped every time): one oversized object must not push out many small ones.
    for (const [key] of [...sizes].sort(([a, sa], [b, sb]) => sb - sa || compareKeys(a, b))) {
      if (total <= maxBytes) break;
      total -= sizes.get(key)!;
      dropped.push(key);
      this.#items.delete(key);
    }
    const droppedText = dropped.sort().join(",");
    if (droppedText !== this.#lastDropped && dropped.length > 0) {
      log.warn("Checkpoint size limit reached: these objects are not kept, so they are not available when bunlet starts without the apiserver", {
        kind,
        limitBytes: maxBytes,
        dropped: droppedText,
      });
    }
    this.#lastDropped = droppedText;
    this.#present = true;
  }

  /**
   * Writes the file if its bytes changed. A write that fails is logged: the previous file stays,
   * and the next change tries again.
   */
  write(): void {
    const { path, kind, log } = this.#opts;
    const sorted = [...this.#items.entries()].sort(([a], [b]) => compareKeys(a, b));
    const text = checkpointTextOf(kind, sorted.map(([, item]) => this.#jsonOf(item)));
    if (text === this.#written) return;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      writeFileAtomic(path, text, FILE_MODE);
      this.#written = text;
      this.#present = true;
      log.debug("Wrote checkpoint file", { path, items: this.#items.size, bytes: text.length }, 4);
    } catch (err) {
      log.error("Could not write a checkpoint file; the previous one stays, and the next change tries again", { path, err });
    }
  }

  #jsonOf(item: T): string {
    let json = this.#json.get(item as object);
    if (json === undefined) {
      json = JSON.stringify(item);
      this.#json.set(item as object, json);
    }
    return json;
  }
}
