import { execFile, spawn } from "node:child_process";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

const INSTALL_HINT = "apt-get install containerd runc containernetworking-plugins (or run scripts/install-deps.sh)";

/** Directories containerd needs for itself, its shims and runc; bunlet may run with a thin PATH. */
const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/** A running containerd; `exited` settles once, when the process is gone. */
export interface ContainerdChild {
  pid: number;
  exited: Promise<ChildExit>;
}

/**
 * containerd finds its shim (`containerd-shim-runc-v2`) on PATH, so the binary's own directory
 * comes first: a containerd 1.7 or 2.x unpacked elsewhere runs its own shim, not the system's.
 */
function childPath(binary?: string): string {
  const current = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  const own = binary ? [dirname(binary)] : [];
  const dirs = [...own, ...current, ...SYSTEM_PATH];
  return dirs.filter((dir, i) => dirs.indexOf(dir) === i).join(delimiter);
}

/** Finds the containerd binary, or throws an error that says how to install it. */
export function findContainerd(explicit?: string): string {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`containerd binary ${explicit} does not exist; install it with: ${INSTALL_HINT}`);
    return explicit;
  }
  for (const dir of childPath().split(delimiter)) {
    const candidate = join(dir, "containerd");
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(`containerd was not found on PATH (${process.env.PATH ?? ""}); install it with: ${INSTALL_HINT}`);
}

/** The first line of `containerd --version`, e.g. `containerd github.com/containerd/containerd 1.7.24~ds1 …`. */
export function readContainerdVersion(binary: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["--version"], { signal, timeout: 10_000 }, (err, stdout) => {
      if (err) reject(new Error(`${binary} --version failed: ${err.message}`, { cause: err }));
      else resolve(stdout.split("\n")[0] ?? "");
    });
  });
}

/**
 * Starts containerd in its own session, so a terminal's Ctrl-C reaches bunlet only and bunlet
 * decides when containerd stops. Shims start their own process groups (runc v2 `shim start`),
 * so signalling containerd never reaches them.
 */
export function spawnContainerd(binary: string, configFile: string, logFile: string): ContainerdChild {
  const logFd = openSync(logFile, "a");
  try {
    const env: Record<string, string | undefined> = { ...process.env, PATH: childPath(binary) };
    // containerd would otherwise tell bunlet's systemd unit that *it* is ready.
    delete env.NOTIFY_SOCKET;
    const child = spawn(binary, ["--config", configFile], {
      detached: true,
      stdio: ["ignore", logFd, logFd],
      env,
    });
    const exited = new Promise<ChildExit>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", () => resolve({ code: null, signal: null }));
    });
    if (child.pid === undefined) throw new Error(`could not spawn ${binary}`);
    return { pid: child.pid, exited };
  } finally {
    closeSync(logFd);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The command line of a live process, or undefined. */
function cmdline(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
}

/** The pid recorded by a previous run if that process is still a containerd using `configFile`. */
export function stalePid(pidFile: string, configFile: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, "utf8").trim(), 10);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  const args = cmdline(pid);
  if (!args || !args[0]?.endsWith("containerd") || !args.includes(configFile)) return undefined;
  return pid;
}

/** The last lines of containerd's log, for error messages. */
export function logTail(logFile: string, lines = 15): string {
  let fd: number | undefined;
  try {
    fd = openSync(logFile, "r");
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, 16384));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    return buf.toString("utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
