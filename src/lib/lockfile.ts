/**
 * Exclusive advisory locks with flock(2), as the kubelet's --lock-file (util/flock) takes them:
 * the kernel releases the lock when the process dies however it dies, so a crash never leaves a
 * stale lock behind. Node has no flock, so it is called from libc through bun:ffi. The lock is
 * always tried without blocking (LOCK_NB): the caller decides whether to give up or to wait.
 *
 * The holder writes its pid into the file, so a process that finds the lock taken can say who
 * holds it. The descriptor is opened close-on-exec (as every Node/Bun open is), so children such
 * as the embedded containerd never inherit the lock and never keep it alive after bunlet exits.
 */
import { dlopen, FFIType, read } from "bun:ffi";
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = 11;
const EINTR = 4;

type Libc = {
  flock(fd: number, operation: number): number;
  errno(): number;
};

let libc: Libc | undefined;

function loadLibc(): Libc {
  if (libc) return libc;
  const lib = dlopen("libc.so.6", {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  libc = {
    flock: (fd, operation) => lib.symbols.flock(fd, operation),
    errno: () => read.i32(lib.symbols.__errno_location()!, 0),
  };
  return libc;
}

/** The lock is held by another open file description (another process, or another open here). */
export class LockHeldError extends Error {
  override readonly name = "LockHeldError";
  constructor(
    readonly path: string,
    /** The pid the holder wrote into the file, if it could be read. */
    readonly holderPid: number | undefined,
  ) {
    super(`${path} is locked by ${holderPid === undefined ? "another process" : `pid ${holderPid}`}`);
  }
}

export interface FileLock {
  readonly path: string;
  /** Unlocks and closes the file (the kernel does the same when the process exits). */
  release(): void;
}

/** The pid a holder wrote into the lock file, if the file holds one. */
function lockHolderPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes an exclusive lock on `path` (created 0600 when missing) without waiting, and writes this
 * process's pid into it. Throws LockHeldError when another holder has it, or an Error naming the
 * path and errno when flock itself fails.
 */
export function tryLockFile(path: string, pid = process.pid): FileLock {
  const c = loadLibc();
  // "a+" never truncates: a process that fails to take the lock leaves the holder's pid intact.
  const fd = openSync(path, "a+", 0o600);
  let result: number;
  let errno = 0;
  do {
    result = c.flock(fd, LOCK_EX | LOCK_NB);
    errno = result === 0 ? 0 : c.errno();
  } while (result !== 0 && errno === EINTR);
  if (result !== 0) {
    closeSync(fd);
    if (errno === EWOULDBLOCK) throw new LockHeldError(path, lockHolderPid(path));
    throw new Error(`flock(${path}) failed with errno ${errno}`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${pid}\n`);
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      c.flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}
