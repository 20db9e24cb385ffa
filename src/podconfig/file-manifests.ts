/**
 * Reading --pod-manifest-path into a snapshot (the kubelet's resetStoreFromPath/extractFromDir):
 * a directory lists its regular files, sorted, without recursion, skipping names that start with
 * "."; symlinks to files count as files. A file path is that one manifest.
 *
 * Beyond the kubelet: a file that decoded once and then stops decoding keeps its last good pod in
 * the snapshot (the kubelet would drop the pod at the next relist and kill it); its error is kept
 * for reporting. An error is logged when a file changes into it, and again at each periodic check
 * (repeatErrorsAtNextList) until the file is fixed or removed, not at every watch event: one write
 * can raise several. Removing the file removes the pod as usual. Decoding happens only when a
 * file's bytes change.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { podRef, type Pod } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import { decodeManifest, maxConfigLength } from "./decode.ts";
import { ManifestError } from "./errors.ts";

export interface ManifestFilesOptions {
  path: string;
  nodeName: string;
  log: Logger;
  /** Called once for each new bad version of a file (not at every relist). */
  onNewError: (err: ManifestError) => void;
}

export interface ListResult {
  /** "missing" when the configured path does not exist (the snapshot is then empty). */
  kind: "dir" | "file" | "missing";
  /** Inode of the configured path, to notice a directory replaced under a watch. */
  ino: number;
  pods: Pod[];
}

interface FileState {
  /** What the current verdict was computed from: the bytes, or size+mtime for a refused file. */
  fingerprint: Buffer | string;
  pod?: Pod;
  error?: ManifestError;
  lastGood?: Pod;
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export class ManifestFiles {
  readonly #opts: ManifestFilesOptions;
  readonly #files = new Map<string, FileState>();
  readonly #notRecursing = new Set<string>();
  #repeatErrorsDue = false;
  /** Whether the list in progress logs errors of files that did not change. */
  #repeatingErrors = false;

  constructor(opts: ManifestFilesOptions) {
    this.#opts = opts;
  }

  /** Current errors by file path (files whose latest version does not decode). */
  errors(): Map<string, ManifestError> {
    const out = new Map<string, ManifestError>();
    for (const [file, state] of this.#files) if (state.error) out.set(file, state.error);
    return out;
  }

  /** The next list() logs the errors of unchanged files again (the periodic check calls this). */
  repeatErrorsAtNextList(): void {
    this.#repeatErrorsDue = true;
  }

  /** Reads the path; throws only when nothing at all could be read (e.g. permission denied). */
  async list(): Promise<ListResult> {
    const path = this.#opts.path;
    this.#repeatingErrors = this.#repeatErrorsDue;
    this.#repeatErrorsDue = false;
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      if (errnoCode(err) !== "ENOENT") throw err;
      this.#files.clear();
      return { kind: "missing", ino: 0, pods: [] };
    }
    let files: string[];
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter((n) => !n.startsWith(".")).sort();
      files = names.map((n) => join(path, n));
    } else if (info.isFile()) {
      files = [path];
    } else {
      throw new Error(`manifest path ${path} is not a directory or a regular file`);
    }
    const pods: Pod[] = [];
    const present = new Set<string>();
    for (const file of files) {
      const pod = await this.#readEntry(file, present);
      if (pod) pods.push(pod);
    }
    for (const file of this.#files.keys()) if (!present.has(file)) this.#files.delete(file);
    for (const dir of this.#notRecursing) if (!present.has(dir)) this.#notRecursing.delete(dir);
    return { kind: info.isDirectory() ? "dir" : "file", ino: info.ino, pods };
  }

  /** The pod a directory entry contributes to the snapshot, if any. */
  async #readEntry(file: string, present: Set<string>): Promise<Pod | undefined> {
    const log = this.#opts.log;
    let info;
    try {
      info = await stat(file);
    } catch (err) {
      // A symlink whose target is gone is a removed manifest; anything else is a read problem.
      if (errnoCode(err) === "ENOENT") return undefined;
      present.add(file);
      return this.#verdict(file, String(err), () => this.#unreadable(file, err));
    }
    present.add(file);
    if (info.isDirectory()) {
      if (!this.#notRecursing.has(file)) log.info("Not recursing into manifest path", { path: file });
      this.#notRecursing.add(file);
      return undefined;
    }
    if (!info.isFile()) {
      log.warn("Manifest path is not a regular file, ignoring it", { path: file });
      return undefined;
    }
    if (info.size > maxConfigLength) {
      const detail = `manifest is ${info.size} bytes, more than the limit of ${maxConfigLength}`;
      return this.#verdict(file, `${info.size}:${info.mtimeMs}`, () => new ManifestError(file, [{ code: "TooLarge", field: "", detail }]));
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      if (errnoCode(err) === "ENOENT") {
        present.delete(file);
        return undefined;
      }
      return this.#verdict(file, String(err), () => this.#unreadable(file, err));
    }
    return this.#verdict(file, bytes, () => decodeManifest(bytes, { source: file, nodeName: this.#opts.nodeName, isFile: true }));
  }

  #unreadable(file: string, err: unknown): ManifestError {
    return new ManifestError(file, [{ code: "Unreadable", field: "", detail: (err as Error).message }]);
  }

  /** Errors of files whose pod keeps running in its last good version, by that pod's UID. */
  keptPodErrors(): Map<string, ManifestError> {
    const out = new Map<string, ManifestError>();
    for (const state of this.#files.values()) {
      const uid = state.lastGood?.metadata.uid;
      if (state.error && uid) out.set(uid, state.error);
    }
    return out;
  }

  /**
   * Decides what a file contributes, decoding only when its fingerprint changed, and applies the
   * last-good policy. `decode` returns a Pod, or throws or returns a ManifestError.
   */
  #verdict(file: string, fingerprint: Buffer | string, decode: () => Pod | ManifestError): Pod | undefined {
    let state = this.#files.get(file);
    const changed = !state || !sameFingerprint(state.fingerprint, fingerprint);
    if (!state || changed) {
      const next: FileState = { fingerprint, lastGood: state?.lastGood };
      try {
        const result = decode();
        if (result instanceof ManifestError) next.error = result;
        else next.pod = next.lastGood = result;
      } catch (err) {
        if (!(err instanceof ManifestError)) throw err;
        next.error = err;
      }
      if (next.error) this.#opts.onNewError(next.error);
      state = next;
      this.#files.set(file, state);
    }
    if (state.pod) return state.pod;
    const kept = state.lastGood;
    if (!changed && !this.#repeatingErrors) return kept;
    this.#opts.log.error(
      kept
        ? "Static pod manifest is invalid; keeping the last good version of its pod until it is fixed or removed"
        : "Static pod manifest is invalid; ignoring it until it is fixed",
      { file, err: state.error, ...(kept ? { pod: podRef(kept) } : {}) },
    );
    return kept;
  }
}

function sameFingerprint(a: Buffer | string, b: Buffer | string): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  return a.equals(b);
}
