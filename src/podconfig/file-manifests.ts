/**
 * Reading --pod-manifest-path into a snapshot (the kubelet's resetStoreFromPath/extractFromDir):
 * a directory lists its regular files, sorted, without recursion, skipping names that start with
 * "."; symlinks to files count as files. A file path is that one manifest.
 *
 * Beyond the kubelet: a file that decoded once and then stops decoding keeps its last good pod in
 * the snapshot (the kubelet would drop the pod at the next relist and kill it); its error is kept
 * for reporting and logged at every relist until the file is fixed or removed. With a store, the
 * last good version also survives a restart (last-good-store.ts). Removing the file removes the
 * pod as usual. Decoding happens only when a file's bytes change.
 *
 * A new bad version is reported (logged, counted, listed) only once it has stayed unchanged for
 * settleMs: an editor's or `cat >`'s first, empty write is fixed by the next write a few ms later
 * and is no error worth an alert. A fixed manifest logs that it recovered. Two files defining the
 * same pod are reported once, with both names (file-duplicates.ts).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { podRef, type Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { decodeManifest, maxConfigLength } from "./decode.ts";
import { ManifestError } from "./errors.ts";
import { splitDuplicates } from "./file-duplicates.ts";
import type { LastGoodStore } from "./last-good-store.ts";

/** How long a new bad version of a file must stay as it is before it is reported. */
const defaultSettleMs = 1_000;

export interface ManifestFilesOptions {
  path: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  /** Called once for each bad version of a file (or duplicate) once reported, not at every relist. */
  onNewError: (err: ManifestError) => void;
  settleMs?: number;
  /** Where last good versions outlive a restart; without it they live in memory only. */
  store?: LastGoodStore;
}

export interface ListResult {
  /** "missing" when the configured path does not exist (the snapshot is then empty). */
  kind: "dir" | "file" | "missing";
  /** Inode of the configured path, to notice a directory replaced under a watch. */
  ino: number;
  pods: Pod[];
  /** When the earliest bad version still settling is due to be reported: list again then. */
  settleAt?: number;
}

interface FileState {
  /** What the current verdict was computed from: the bytes, or size+mtime for a refused file. */
  fingerprint: Buffer | string;
  pod?: Pod;
  error?: ManifestError;
  /** When this bad version was first read; it is reported once it is settleMs old. */
  errorSince?: number;
  /** This bad version has been reported (logged as an error and counted). */
  reported: boolean;
  /** An earlier bad version was reported since the file last decoded (a fix then logs a recovery). */
  reportedBefore: boolean;
  lastGood?: Pod;
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export class ManifestFiles {
  readonly #opts: ManifestFilesOptions;
  readonly #settleMs: number;
  readonly #files = new Map<string, FileState>();
  readonly #notRecursing = new Set<string>();
  /** Reported duplicates: later file → its error (which names the file that wins). */
  #duplicates = new Map<string, ManifestError>();
  #settleAt?: number;

  constructor(opts: ManifestFilesOptions) {
    this.#opts = opts;
    this.#settleMs = opts.settleMs ?? defaultSettleMs;
  }

  /** Reported errors by file path: files whose latest version does not decode, and duplicates. */
  errors(): Map<string, ManifestError> {
    const out = new Map<string, ManifestError>();
    for (const [file, state] of this.#files) if (state.error && state.reported) out.set(file, state.error);
    for (const [file, err] of this.#duplicates) out.set(file, err);
    return out;
  }

  /** Reads the path; throws only when nothing at all could be read (e.g. permission denied). */
  async list(): Promise<ListResult> {
    const path = this.#opts.path;
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      if (errnoCode(err) !== "ENOENT") throw err;
      for (const file of this.#files.keys()) this.#forget(file);
      this.#reportDuplicates(new Map());
      await this.#prune(new Set());
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
    this.#settleAt = undefined;
    const entries: [string, Pod][] = [];
    const present = new Set<string>();
    for (const file of files) {
      const pod = await this.#readEntry(file, present);
      if (pod) entries.push([file, pod]);
    }
    for (const file of this.#files.keys()) if (!present.has(file)) this.#forget(file);
    for (const dir of this.#notRecursing) if (!present.has(dir)) this.#notRecursing.delete(dir);
    await this.#prune(present);
    const { pods, duplicates } = splitDuplicates(entries);
    this.#reportDuplicates(duplicates);
    return { kind: info.isDirectory() ? "dir" : "file", ino: info.ino, pods, settleAt: this.#settleAt };
  }

  /** A file that is gone: its state, and its saved last good version (pruned after the list). */
  #forget(file: string): void {
    const state = this.#files.get(file);
    this.#files.delete(file);
    if (state && (state.reported || state.reportedBefore) && state.pod === undefined) {
      this.#opts.log.info("Invalid static pod manifest was removed", { file });
    }
  }

  async #prune(present: ReadonlySet<string>): Promise<void> {
    try {
      await this.#opts.store?.prune(present);
    } catch (err) {
      this.#opts.log.warn("Could not prune saved last good manifests; retrying at the next relist", { err });
    }
  }

  /** Logs each new duplicate once (warning, both names) and each resolved one once (info). */
  #reportDuplicates(now: Map<string, ManifestError>): void {
    const { log } = this.#opts;
    for (const [file, err] of now) {
      if (this.#duplicates.get(file)?.message === err.message) continue;
      log.warn("Two static pod manifests define the same pod; ignoring the later file until one of them changes", {
        file,
        err,
      });
      this.#opts.onNewError(err);
    }
    for (const file of this.#duplicates.keys()) {
      if (!now.has(file)) log.info("Static pod manifest is no longer a duplicate", { file });
    }
    this.#duplicates = now;
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
    return this.#verdict(file, bytes, () => this.#decode(file, bytes), bytes);
  }

  #decode(file: string, bytes: Buffer): Pod {
    return decodeManifest(bytes, { source: file, nodeName: this.#opts.nodeName, isFile: true });
  }

  /** The saved last good pod of `file` (a previous run's), if the store has one that decodes. */
  async #restore(file: string): Promise<Pod | undefined> {
    const { store, log } = this.#opts;
    if (!store) return undefined;
    let bytes: Buffer | undefined;
    try {
      bytes = await store.load(file);
    } catch (err) {
      log.warn("Could not read the saved last good version of a static pod manifest", { file, err });
      return undefined;
    }
    if (!bytes) return undefined;
    try {
      const pod = this.#decode(file, bytes);
      log.info("Static pod manifest is invalid; using its last good version saved by a previous run", { file, pod: podRef(pod) });
      return pod;
    } catch (err) {
      log.warn("The saved last good version of a static pod manifest no longer decodes; not using it", { file, err });
      return undefined;
    }
  }

  async #save(file: string, bytes: Buffer): Promise<void> {
    try {
      await this.#opts.store?.save(file, bytes);
    } catch (err) {
      this.#opts.log.warn("Could not save the last good version of a static pod manifest; it will not outlive a restart", { file, err });
    }
  }

  #unreadable(file: string, err: unknown): ManifestError {
    return new ManifestError(file, [{ code: "Unreadable", field: "", detail: (err as Error).message }]);
  }

  /** Reported errors of files whose pod keeps running in its last good version, by that pod's UID. */
  keptPodErrors(): Map<string, ManifestError> {
    const out = new Map<string, ManifestError>();
    for (const state of this.#files.values()) {
      const uid = state.lastGood?.metadata.uid;
      if (state.error && state.reported && uid) out.set(uid, state.error);
    }
    return out;
  }

  /**
   * Decides what a file contributes, decoding only when its fingerprint changed, and applies the
   * last-good policy. `decode` returns a Pod, or throws or returns a ManifestError. `bytes`, for a
   * file that was read, is what gets saved when it decodes.
   */
  async #verdict(file: string, fingerprint: Buffer | string, decode: () => Pod | ManifestError, bytes?: Buffer): Promise<Pod | undefined> {
    const { clock, log } = this.#opts;
    let state = this.#files.get(file);
    if (!state || !sameFingerprint(state.fingerprint, fingerprint)) {
      const reportedBefore = state !== undefined && (state.reported || state.reportedBefore) && state.pod === undefined;
      const next: FileState = { fingerprint, lastGood: state?.lastGood, reported: false, reportedBefore };
      try {
        const result = decode();
        if (result instanceof ManifestError) next.error = result;
        else next.pod = next.lastGood = result;
      } catch (err) {
        if (!(err instanceof ManifestError)) throw err;
        next.error = err;
      }
      if (next.pod) {
        if (reportedBefore) log.info("Static pod manifest is valid again", { file, pod: podRef(next.pod) });
        if (bytes) await this.#save(file, bytes);
      } else {
        next.errorSince = clock.now();
        // First sight of this file in this run: a previous run may have saved its last good version.
        if (!state) next.lastGood = await this.#restore(file);
      }
      state = next;
      this.#files.set(file, state);
    }
    if (state.pod) return state.pod;
    const kept = state.lastGood;
    if (!state.reported) {
      const due = (state.errorSince ?? 0) + this.#settleMs;
      if (clock.now() < due) {
        // Possibly a write in progress: wait for the next event, or report it at `due`.
        log.debug("Static pod manifest does not decode yet; reporting it if it stays so", { file, err: state.error, reportInMs: due - clock.now() }, 4);
        this.#settleAt = Math.min(this.#settleAt ?? due, due);
        return kept;
      }
      state.reported = true;
      this.#opts.onNewError(state.error!);
    }
    log.error(
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
