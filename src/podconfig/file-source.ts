/**
 * The file source (the kubelet's sourceFile, file.go + file_linux.go): lists --pod-manifest-path,
 * then keeps it current with an inotify watch (fs.watch) and a relist every fileCheckFrequency.
 * Every list sends the full snapshot; a missing path sends an empty one, so the source still
 * counts as seen, and the watch is retried with backoff (1 s doubling to 20 s) until the path
 * appears. A file path is watched through its directory, so editors that replace the file by
 * renaming are still noticed.
 *
 * Timing (relist period, watch retry) runs on the injected Clock; only the inotify events are
 * real. Relists never overlap: events during a relist coalesce into one more relist after it.
 */
import { watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { FileSource as FileSourceName, type Pod } from "../api/index.ts";
import { Backoff, delay, isAbortError, type Clock, type Logger, type Timer } from "../lib/index.ts";
import type { ManifestError } from "./errors.ts";
import { ManifestFiles, type ListResult } from "./file-manifests.ts";
import type { LastGoodStore } from "./last-good-store.ts";
import type { PodSource } from "./source.ts";

/** The slice of bunlet's metrics the sources write. */
export interface ManifestErrorMetrics {
  /** Counts each bad manifest version once it is reported. */
  manifestErrors: { inc(labels: { source: string }): void };
  /** How many manifests are rejected right now. */
  rejectedManifests: { set(labels: { source: string }, value: number): void };
}

export interface FileSourceOptions {
  path: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  checkFrequencyMs: number;
  metrics: ManifestErrorMetrics;
  /** Receives every snapshot; the source waits for it before listing again. */
  onSnapshot: (pods: Pod[]) => Promise<void>;
  /** Keeps each manifest's last good version across restarts (`<root-dir>/static-pods`). */
  store?: LastGoodStore;
  /** How long a new bad version must stay unchanged before it is reported (default 1 s). */
  settleMs?: number;
}

const watchRetryInitialMs = 1_000;
const watchRetryMaxMs = 20_000;

type WatchEnd = "aborted" | "failed" | "changed";

interface ActiveWatch {
  ended: Promise<WatchEnd>;
  close(): void;
}

interface WatchTarget {
  kind: "dir" | "file";
  /** The directory inotify watches, and the one name it cares about when the path is a file. */
  dir: string;
  only?: string;
  ino: number;
}

export class FileSource implements PodSource {
  readonly name = FileSourceName;
  readonly #opts: FileSourceOptions;
  readonly #files: ManifestFiles;
  #current?: Promise<void>;
  #pending?: Promise<void>;
  #last?: ListResult;
  /** The relist that reports a bad version once it has settled. */
  #settleTimer?: { at: number; timer: Timer };
  #stopped = false;

  constructor(opts: FileSourceOptions) {
    // inotify wants the path without a trailing slash; the UID hash uses the same spelling.
    const path = opts.path.length > 1 ? opts.path.replace(/\/+$/, "") : opts.path;
    this.#opts = { ...opts, path };
    this.#files = new ManifestFiles({
      path,
      nodeName: opts.nodeName,
      clock: opts.clock,
      log: opts.log,
      onNewError: () => opts.metrics.manifestErrors.inc({ source: "file" }),
      settleMs: opts.settleMs,
      store: opts.store,
    });
  }

  get path(): string {
    return this.#opts.path;
  }

  /** Current manifest errors by file path. */
  manifestErrors(): Map<string, ManifestError> {
    return this.#files.errors();
  }

  /** Errors of broken files whose last good pod still runs, by pod UID. */
  keptPodErrors(): Map<string, ManifestError> {
    return this.#files.keptPodErrors();
  }

  /** Lists now and delivers the snapshot; a call during a relist gets one more relist after it. */
  relist(): Promise<void> {
    if (!this.#current) {
      this.#current = this.#listAndSend().finally(() => {
        this.#current = undefined;
      });
      return this.#current;
    }
    this.#pending ??= this.#current.then(() => {
      this.#pending = undefined;
      return this.relist();
    });
    return this.#pending;
  }

  /** Watches and relists until the signal aborts; resolves once everything has stopped. */
  async run(signal: AbortSignal): Promise<void> {
    this.#opts.log.info("Watching static pod path", { path: this.#opts.path });
    const onAbort = () => {
      this.#stopped = true;
      this.#settleTimer?.timer.cancel();
      this.#settleTimer = undefined;
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    await Promise.all([this.#watchLoop(signal), this.#relistLoop(signal)]);
    await (this.#pending ?? this.#current);
  }

  /** Relists when a bad version that is still settling is due to be reported. */
  #scheduleSettle(at: number | undefined): void {
    if (at === undefined || this.#stopped) return;
    if (this.#settleTimer && this.#settleTimer.at <= at) return;
    this.#settleTimer?.timer.cancel();
    const timer = this.#opts.clock.setTimer(at - this.#opts.clock.now(), () => {
      this.#settleTimer = undefined;
      void this.relist();
    });
    this.#settleTimer = { at, timer };
  }

  async #listAndSend(): Promise<void> {
    let result: ListResult;
    try {
      result = await this.#files.list();
    } catch (err) {
      this.#opts.log.error("Unable to read static pod path; keeping its pods as they are and retrying at the next check", {
        path: this.#opts.path,
        err,
      });
      return;
    }
    this.#last = result;
    this.#opts.metrics.rejectedManifests.set({ source: "file" }, this.#files.errors().size);
    this.#scheduleSettle(result.settleAt);
    try {
      await this.#opts.onSnapshot(result.pods);
    } catch (err) {
      if (!isAbortError(err)) this.#opts.log.error("Failed to deliver static pod snapshot", { path: this.#opts.path, err });
    }
  }

  async #relistLoop(signal: AbortSignal): Promise<void> {
    while (await delay(this.#opts.clock, this.#opts.checkFrequencyMs, signal)) await this.relist();
  }

  async #watchLoop(signal: AbortSignal): Promise<void> {
    const { clock, log, path } = this.#opts;
    const backoff = new Backoff(clock, { initialMs: watchRetryInitialMs, maxMs: watchRetryMaxMs });
    while (!signal.aborted) {
      const target = await this.#watchTarget();
      let watch: ActiveWatch | undefined;
      if (target) {
        try {
          watch = this.#watch(target, signal);
        } catch (err) {
          log.error("Unable to watch static pod path; will retry", { path, err });
        }
      }
      await this.relist();
      if (watch) {
        backoff.reset("watch");
        const why = await watch.ended;
        watch.close();
        if (why !== "failed") continue;
      }
      const waitMs = backoff.next("watch");
      if (!target) log.info("Static pod path is not there (yet); will look again", { path, retryInMs: waitMs });
      if (!(await delay(clock, waitMs, signal))) return;
    }
  }

  async #watchTarget(): Promise<WatchTarget | undefined> {
    const path = this.#opts.path;
    try {
      const info = await stat(path);
      if (info.isDirectory()) return { kind: "dir", dir: path, ino: info.ino };
      if (info.isFile()) return { kind: "file", dir: dirname(path), only: basename(path), ino: info.ino };
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        this.#opts.log.error("Unable to stat static pod path; will retry", { path, err });
      }
      return undefined;
    }
  }

  /**
   * Starts inotify on the target. `ended` settles when the watch is no longer useful: the signal
   * aborted, inotify failed, or a relist showed the path gone, turned into the other kind, or
   * (for a directory) replaced by a new one that this watch cannot see.
   */
  #watch(target: WatchTarget, signal: AbortSignal): ActiveWatch {
    let end!: (why: WatchEnd) => void;
    const ended = new Promise<WatchEnd>((resolve) => (end = resolve));
    const watcher = watch(target.dir, (_event, filename) => {
      const name = typeof filename === "string" ? filename : undefined;
      if (name !== undefined && (name.startsWith(".") || (target.only !== undefined && name !== target.only))) return;
      void this.relist().then(() => {
        const last = this.#last;
        if (!last || last.kind !== target.kind || (target.kind === "dir" && last.ino !== target.ino)) end("changed");
      });
    });
    watcher.on("error", (err) => {
      this.#opts.log.error("Watch on static pod path failed; will retry", { path: this.#opts.path, err });
      end("failed");
    });
    const onAbort = () => end("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    return {
      ended,
      close: () => {
        signal.removeEventListener("abort", onAbort);
        watcher.close();
      },
    };
  }
}
