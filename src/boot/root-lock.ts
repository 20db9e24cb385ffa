/**
 * One bunlet per root directory: an exclusive flock on `<root-dir>/bunlet.lock`, taken before
 * anything else touches the root dir (before the embedded containerd is started, or one left by
 * a previous run is stopped). A second bunlet on the same root dir fails at once, naming the
 * directory and the holder's pid, and touches nothing.
 *
 * The kubelet's --lock-file names a further file locked the same way, and
 * --exit-on-lock-contention gives the kubelet's hand-over: a bunlet started with it that finds the
 * lock taken asks the holder to go (it touches the lock file) and waits for the lock; a holder
 * started with it leaves (pods keep running) when someone asks. The kubelet notices the asking
 * through inotify IN_OPEN; fs.watch cannot see opens, so bunlet's newcomer touches the file's
 * times instead, and a second bunlet without the flag only reads the file and exits.
 */
import { mkdirSync, utimesSync, watch, type FSWatcher } from "node:fs";
import { join, resolve } from "node:path";
import { delay, LockHeldError, tryLockFile, type Clock, type FileLock, type Logger } from "../lib/index.ts";

const ROOT_LOCK_FILE = "bunlet.lock";
const CONTENTION_POLL_MS = 200;

/** Another process holds the lock of this root dir (or of --lock-file). */
export class RootDirInUseError extends Error {
  override readonly name = "RootDirInUseError";
  constructor(
    readonly rootDir: string,
    readonly lockFile: string,
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid === undefined ? "another process" : `pid ${holderPid}`;
    super(`root directory ${rootDir} is in use by ${holder} (lock file ${lockFile}); this bunlet exits without touching it`);
  }
}

export interface RootLockOptions {
  rootDir: string;
  /** --lock-file: a further lock file ("" = none). */
  lockFile: string;
  /** --exit-on-lock-contention: wait for a holder to leave, and leave when asked. */
  exitOnLockContention: boolean;
  clock: Clock;
  log: Logger;
  /** Aborting it gives up waiting for a contended lock. */
  signal: AbortSignal;
  pollMs?: number;
}

export interface RootLock {
  readonly files: readonly string[];
  /**
   * With --exit-on-lock-contention: resolves when another bunlet asks for the lock (the owner
   * then shuts down). Never resolves otherwise.
   */
  readonly contended: Promise<void>;
  /** Stops watching and releases every lock (the kernel also does it when the process exits). */
  release(): void;
}

/** The lock files for these settings: the root dir's, then --lock-file if it is another file. */
export function rootLockFiles(rootDir: string, lockFile: string): string[] {
  const own = join(resolve(rootDir), ROOT_LOCK_FILE);
  return lockFile === "" || resolve(lockFile) === own ? [own] : [own, resolve(lockFile)];
}

export async function lockRootDir(opts: RootLockOptions): Promise<RootLock> {
  const rootDir = resolve(opts.rootDir);
  // 0750 as the kubelet's setupDataDirs makes it: created here first, setupRootDir keeps what exists.
  mkdirSync(rootDir, { recursive: true, mode: 0o750 });
  const held: FileLock[] = [];
  const watchers: FSWatcher[] = [];
  const release = () => {
    for (const w of watchers.splice(0)) w.close();
    for (const lock of held.splice(0).reverse()) lock.release();
  };
  try {
    for (const file of rootLockFiles(rootDir, opts.lockFile)) held.push(await acquire(file, rootDir, opts));
  } catch (err) {
    release();
    throw err;
  }
  opts.log.debug("Holding the root directory lock", { rootDir, lockFiles: held.map((l) => l.path) }, 2);

  const contended = Promise.withResolvers<void>();
  if (opts.exitOnLockContention) {
    for (const lock of held) {
      const w = watch(lock.path, () => {
        opts.log.info("Another bunlet asks for the root directory lock (--exit-on-lock-contention); shutting down, pods keep running", {
          lockFile: lock.path,
        });
        contended.resolve();
      });
      w.on("error", (err) => {
        opts.log.warn("Cannot watch the lock file for contention; this bunlet will not hand over on request", { lockFile: lock.path, err });
      });
      watchers.push(w);
    }
  }
  return { files: held.map((l) => l.path), contended: contended.promise, release };
}

async function acquire(file: string, rootDir: string, opts: RootLockOptions): Promise<FileLock> {
  let asked = false;
  for (;;) {
    try {
      return tryLockFile(file);
    } catch (err) {
      if (!(err instanceof LockHeldError)) throw err;
      if (!opts.exitOnLockContention) throw new RootDirInUseError(rootDir, file, err.holderPid);
      if (!asked) {
        asked = true;
        // The holder's watch sees the change of times and, if it runs with
        // --exit-on-lock-contention too, shuts down and releases the lock.
        const now = new Date();
        utimesSync(file, now, now);
        opts.log.info("Root directory is locked by another bunlet; asked it to exit and waiting for the lock (--exit-on-lock-contention)", {
          rootDir,
          lockFile: file,
          holderPid: err.holderPid,
        });
      }
    }
    if (!(await delay(opts.clock, opts.pollMs ?? CONTENTION_POLL_MS, opts.signal))) opts.signal.throwIfAborted();
  }
}
