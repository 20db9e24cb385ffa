// A cgroup root per test bunlet (--cgroup-root), so that test runs never share the host's
// /kubepods and never leave one behind: made in every hierarchy before bunlet starts, named after
// the bunlet's --root-dir (the same root across restarts of one bunlet), and removed, with what
// bunlet made under it, when the test is done. Empty left-overs of killed test runs are removed
// by the next harness start (reapTestCgroupRoots).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PREFIX = "bunlet-e2e-";
const CGROUP = "/sys/fs/cgroup";

/** Every hierarchy's mount point: the v2 root, or each v1 controller's and a hybrid host's cgroup2 (runc makes cgroups there too). */
export function cgroupMounts(): string[] {
  if (existsSync(join(CGROUP, "cgroup.controllers"))) return [CGROUP];
  const out: string[] = [];
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash > 0 && (fields[dash + 1] === "cgroup" || fields[dash + 1] === "cgroup2")) out.push(fields[4] ?? "");
  }
  return out;
}

/** The --cgroup-root of the bunlet whose --root-dir is rootDir. */
export function testCgroupRoot(rootDir: string): string {
  return `/${PREFIX}${createHash("sha256").update(rootDir).digest("hex").slice(0, 12)}`;
}

/** Creates the root in every hierarchy (cpuset: the parent's cpus and mems, or no task could join). */
export function ensureTestCgroupRoot(root: string): void {
  for (const mount of cgroupMounts()) {
    const dir = join(mount, root);
    if (existsSync(dir)) continue;
    mkdirSync(dir);
    for (const file of ["cpuset.cpus", "cpuset.mems"]) {
      const path = join(dir, file);
      if (existsSync(path) && readFileSync(path, "utf8").trim() === "") writeFileSync(path, readFileSync(join(mount, file), "utf8").trim());
    }
  }
}

/** The subdirectories of a cgroup, none when it is gone: another test process's reaper may remove it while this one reads. */
function childCgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

function pidsUnder(dir: string): number[] {
  if (!existsSync(dir)) return [];
  let own: number[] = [];
  try {
    own = readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter((l) => l !== "").map(Number);
  } catch {
    // gone meanwhile
  }
  return [...own, ...childCgroups(dir).flatMap(pidsUnder)];
}

function removeTree(dir: string): boolean {
  if (!existsSync(dir)) return true;
  let ok = true;
  for (const child of childCgroups(dir)) ok = removeTree(child) && ok;
  try {
    rmdirSync(dir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT"; // removed by another reaper: gone all the same
  }
  return ok;
}

/** The root's tree when nothing runs in it any more; false when something still does (left for the reaper). */
export function removeIdleTestCgroupRoot(root: string): boolean {
  if (cgroupMounts().some((m) => pidsUnder(join(m, root)).length > 0)) return false;
  return cgroupMounts().every((m) => removeTree(join(m, root)));
}

/** Processes left in the root (a test's containers, when containerd was not stopped), then the tree. */
export async function removeTestCgroupRoot(root: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = cgroupMounts().flatMap((m) => pidsUnder(join(m, root)));
    for (const pid of new Set(pids)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    if (cgroupMounts().every((m) => removeTree(join(m, root)))) return;
    await Bun.sleep(100);
  }
  throw new Error(`the test cgroup root ${root} could not be removed`);
}

/** Whether a live process (a test bunlet) was started with this root. */
function rootInUse(root: string): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(`--cgroup-root=${root}`)) return true;
    } catch {
      // exited while we looked
    }
  }
  return false;
}

/**
 * How long a root is left alone after it was made or last changed: a concurrent test process makes
 * its root before it starts the bunlet that names it, and must not find it reaped in between.
 */
const REAP_MIN_AGE_MS = 10 * 60_000;

function recentlyChanged(dir: string): boolean {
  try {
    return Date.now() - statSync(dir).mtimeMs < REAP_MIN_AGE_MS;
  } catch {
    return false;
  }
}

/** Test roots nobody uses any more (no bunlet, no process in them, untouched for a while): what runs killed before their teardown left. */
export function reapTestCgroupRoots(): string[] {
  const reaped: string[] = [];
  for (const mount of cgroupMounts()) {
    let names: string[] = [];
    try {
      names = readdirSync(mount).filter((n) => n.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = join(mount, name);
      if (!recentlyChanged(dir) && !rootInUse(`/${name}`) && pidsUnder(dir).length === 0 && removeTree(dir)) reaped.push(dir);
    }
  }
  return reaped;
}
