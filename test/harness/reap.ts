// Instances whose test process died (killed by a timeout, Ctrl-C) leave a containerd or a registry
// running. Each instance dir records its owner; the next harness start cleans up after dead owners.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reapTestCgroupRoots } from "./cgroups.ts";
import { deleteLink, deleteNatRulesFor, killContainerdOfGoneDirs, killShims, pidsNaming, unmountUnder } from "./cleanup.ts";

const OWNER_FILE = "bunlet-test-owner.json";

export interface OwnerRecord {
  ownerPid: number;
  /** The process to kill when the owner is gone (containerd, docker-registry). */
  childPid?: number;
  socketPath?: string;
  bridgeName?: string;
  podSubnet?: string;
  /** Subnet lock file, removed if it still names the dead owner. */
  lockFile?: string;
  /** Run before the dir is removed, e.g. `cluster.sh down DIR` for a control plane. */
  stopCommand?: string[];
}

export function writeOwner(dir: string, record: OwnerRecord): void {
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify(record));
}

/** True while a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(dir: string): OwnerRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")) as OwnerRecord;
  } catch {
    return undefined;
  }
}

/** A managed containerd's current pid (it changes when the supervisor restarts it). */
function managedContainerdPid(dir: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(join(dir, "containerd", "containerd.pid"), "utf8"), 10) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Cleans every `$TMPDIR/bunlet-*` instance whose owning test process is dead, then stops the
 * containerds (with their shims) of instances whose dir is gone altogether (removed while its
 * containerd still ran, e.g. by a teardown cut short): no owner record is left to find them by.
 * Returns the dirs cleaned.
 */
export function reapAbandoned(): string[] {
  const reaped = reapDeadOwners(tmpdir());
  killContainerdOfGoneDirs(tmpdir(), "bunlet-");
  reapTestCgroupRoots();
  return reaped;
}

/**
 * The `root/bunlet-*` dirs whose owner record names a dead owner: stopped and removed. A dir with
 * no record (one just made, its record not yet written) is never touched, and a recorded pid is
 * signalled only while its command line still names the dir: the host reuses pids (32768 here),
 * and a record can outlive its process by hours.
 */
export function reapDeadOwners(root: string): string[] {
  const reaped: string[] = [];
  for (const name of readdirSync(root)) {
    if (!name.startsWith("bunlet-")) continue;
    const dir = join(root, name);
    const owner = readOwner(dir);
    if (!owner || isAlive(owner.ownerPid)) continue;
    if (owner.stopCommand) Bun.spawnSync(owner.stopCommand, { stdout: "ignore", stderr: "ignore" });
    const naming = new Set(pidsNaming(dir));
    for (const pid of [owner.childPid, managedContainerdPid(dir)]) {
      if (!pid || !naming.has(pid)) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    if (owner.socketPath) killShims(owner.socketPath);
    // Never remove a dir that live processes still use (a control plane without a stopCommand):
    // they would run on, orphaned, holding ports and locks.
    if (pidsNaming(dir).length > 0) continue;
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true });
    if (owner.bridgeName) deleteLink(owner.bridgeName);
    if (owner.podSubnet) deleteNatRulesFor(owner.podSubnet);
    if (owner.lockFile) {
      try {
        if (Number.parseInt(readFileSync(owner.lockFile, "utf8"), 10) === owner.ownerPid) rmSync(owner.lockFile, { force: true });
      } catch {
        // already released
      }
    }
    reaped.push(dir);
  }
  return reaped;
}
