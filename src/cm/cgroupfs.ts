/**
 * Cgroups on the filesystem, v1 and v2 (what libcontainer's fs and fs2 managers do for the
 * kubelet): create a cgroup in every hierarchy (v1; cpuset.cpus/mems copied down so tasks can
 * join) or with its controllers enabled down the path (v2), write its values, list its children,
 * read its usage, and remove it with every child cgroup left in it. `path` is the cgroup's path
 * inside a hierarchy ("/kubepods/burstable/pod<uid>", or a systemd slice's expanded path).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ResourceConfig } from "./resource-config.ts";
import { sharesToWeight } from "./resource-config.ts";
import { hugePageUnit, type CgroupSubsystems } from "./subsystems.ts";

/** What the kubelet checks to say a v1 cgroup exists (cgroupV1impl.Validate's allowlist). */
const V1_REQUIRED = ["cpu", "cpuacct", "cpuset", "memory", "pids", "hugetlb"];

export class CgroupError extends Error {
  override readonly name = "CgroupError";
  constructor(
    message: string,
    /** The errno code of the failed call (EBUSY for a cgroup that still has tasks). */
    readonly code?: string,
  ) {
    super(message);
  }
}

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

function write(dir: string, file: string, value: string): void {
  try {
    writeFileSync(join(dir, file), value);
  } catch (err) {
    throw new CgroupError(`failed to write ${JSON.stringify(value)} to ${join(dir, file)}: ${(err as Error).message}`, errnoOf(err));
  }
}

const readTrim = (dir: string, file: string) => readFileSync(join(dir, file), "utf8").trim();

export interface CgroupFs {
  readonly version: 1 | 2;
  exists(path: string): boolean;
  create(path: string, rc: ResourceConfig): void;
  set(path: string, rc: ResourceConfig): void;
  /** Removes the cgroup and any child cgroups; throws CgroupError (EBUSY) while a task is in it. */
  destroy(path: string): void;
  /** Child cgroup names of `path` (from the memory hierarchy on v1). */
  children(path: string): string[];
  /** Every pid in the cgroup and its children, in every hierarchy. */
  pids(path: string): number[];
  /** memory.usage_in_bytes (v1) / memory.current (v2). */
  memoryUsage(path: string): bigint;
  /** The directories of the cgroup: one per v1 hierarchy, or the one v2 directory. */
  dirs(path: string): string[];
  /** The memory hierarchy's directory of the cgroup. */
  memoryDir(path: string): string;
  /** The CPU hierarchy's directory (cpuacct on v1, where usage is kept). */
  cpuAccountingDir(path: string): string;
}

export function createCgroupFs(subsystems: CgroupSubsystems): CgroupFs {
  return subsystems.version === 2 ? createV2(subsystems) : createV1(subsystems);
}

function createV1(subsystems: CgroupSubsystems): CgroupFs {
  const mounts = [...new Set(subsystems.mountPoints.values())];
  const mountOf = (subsystem: string) => subsystems.mountPoints.get(subsystem);
  const dirOf = (subsystem: string, path: string) => {
    const m = mountOf(subsystem);
    return m === undefined ? undefined : join(m, path);
  };

  /** mkdir each missing level; cpuset levels get their parent's cpus and mems, or no task could join. */
  function makeCpuset(dir: string, mount: string): void {
    const parent = dirname(dir);
    if (parent.length > mount.length) makeCpuset(parent, mount);
    if (!existsSync(dir)) mkdirSync(dir);
    for (const file of ["cpuset.cpus", "cpuset.mems"]) {
      const own = existsSync(join(dir, file)) ? readTrim(dir, file) : "";
      if (own === "") write(dir, file, readTrim(parent, file));
    }
  }

  function set(path: string, rc: ResourceConfig): void {
    const cpu = dirOf("cpu", path);
    if (cpu !== undefined) {
      if (rc.cpuShares !== undefined) write(cpu, "cpu.shares", String(rc.cpuShares));
      if (rc.cpuPeriod !== undefined || rc.cpuQuota !== undefined) setCfs(cpu, rc);
    }
    const memory = dirOf("memory", path);
    if (memory !== undefined && rc.memory !== undefined && rc.memory !== 0n) write(memory, "memory.limit_in_bytes", String(rc.memory));
    const pids = dirOf("pids", path);
    if (pids !== undefined && rc.pidsLimit !== undefined) write(pids, "pids.max", rc.pidsLimit < 0n ? "max" : String(rc.pidsLimit));
    const hugetlb = dirOf("hugetlb", path);
    if (hugetlb !== undefined) {
      for (const [size, limit] of rc.hugePageLimit ?? []) write(hugetlb, `hugetlb.${hugePageUnit(size)}.limit_in_bytes`, String(limit));
    }
  }

  return {
    version: 1,
    exists: (path) => V1_REQUIRED.every((s) => mountOf(s) === undefined || existsSync(join(mountOf(s) ?? "", path))),
    create(path, rc) {
      for (const [subsystem, mount] of subsystems.mountPoints) {
        const dir = join(mount, path);
        if (subsystem === "cpuset") makeCpuset(dir, mount);
        else mkdirSync(dir, { recursive: true });
      }
      set(path, rc);
    },
    set,
    destroy(path) {
      for (const mount of mounts) removeTree(join(mount, path));
    },
    children: (path) => childDirs(dirOf("memory", path) ?? join(mounts[0] ?? "/", path)),
    pids: (path) => [...new Set(mounts.flatMap((m) => treePids(join(m, path))))],
    memoryUsage: (path) => BigInt(readTrim(dirOf("memory", path) ?? "", "memory.usage_in_bytes")),
    dirs: (path) => mounts.map((m) => join(m, path)),
    memoryDir: (path) => dirOf("memory", path) ?? "",
    cpuAccountingDir: (path) => dirOf("cpuacct", path) ?? dirOf("cpu", path) ?? "",
  };
}

/** Period before quota, unless the kernel refuses the period against the old quota (libcontainer's order). */
function setCfs(dir: string, rc: ResourceConfig): void {
  const period = rc.cpuPeriod;
  const quota = rc.cpuQuota;
  if (period === undefined) {
    if (quota !== undefined) write(dir, "cpu.cfs_quota_us", String(quota));
    return;
  }
  try {
    write(dir, "cpu.cfs_period_us", String(period));
  } catch (err) {
    if (!(err instanceof CgroupError) || err.code !== "EINVAL" || quota === undefined) throw err;
    write(dir, "cpu.cfs_quota_us", String(quota));
    write(dir, "cpu.cfs_period_us", String(period));
    return;
  }
  if (quota !== undefined) write(dir, "cpu.cfs_quota_us", String(quota));
}

function createV2(subsystems: CgroupSubsystems): CgroupFs {
  const root = subsystems.unifiedRoot ?? "/sys/fs/cgroup";
  const dirOf = (path: string) => join(root, path);

  /** Each level down to the parent hands its controllers to its children (cgroup.subtree_control). */
  function enableControllers(path: string): void {
    const levels = path.split("/").filter((c) => c !== "");
    let dir = root;
    for (const level of levels) {
      const controllers = existsSync(join(dir, "cgroup.controllers")) ? readTrim(dir, "cgroup.controllers").split(/\s+/).filter((c) => c) : [];
      const enabled = existsSync(join(dir, "cgroup.subtree_control")) ? readTrim(dir, "cgroup.subtree_control").split(/\s+/) : [];
      const missing = controllers.filter((c) => !enabled.includes(c));
      if (missing.length > 0) write(dir, "cgroup.subtree_control", missing.map((c) => `+${c}`).join(" "));
      dir = join(dir, level);
      if (!existsSync(dir)) mkdirSync(dir);
    }
  }

  function set(path: string, rc: ResourceConfig): void {
    const dir = dirOf(path);
    if (rc.cpuShares !== undefined) write(dir, "cpu.weight", String(sharesToWeight(rc.cpuShares)));
    if (rc.cpuQuota !== undefined || rc.cpuPeriod !== undefined) {
      const quota = rc.cpuQuota !== undefined && rc.cpuQuota > 0n ? String(rc.cpuQuota) : "max";
      write(dir, "cpu.max", rc.cpuPeriod !== undefined ? `${quota} ${rc.cpuPeriod}` : quota);
    }
    if (rc.memory !== undefined && rc.memory !== 0n) write(dir, "memory.max", rc.memory < 0n ? "max" : String(rc.memory));
    if (rc.pidsLimit !== undefined) write(dir, "pids.max", rc.pidsLimit < 0n ? "max" : String(rc.pidsLimit));
    if (subsystems.mountPoints.has("hugetlb")) {
      for (const [size, limit] of rc.hugePageLimit ?? []) write(dir, `hugetlb.${hugePageUnit(size)}.max`, String(limit));
    }
  }

  return {
    version: 2,
    exists: (path) => existsSync(dirOf(path)),
    create(path, rc) {
      enableControllers(path);
      set(path, rc);
    },
    set,
    destroy: (path) => removeTree(dirOf(path)),
    children: (path) => childDirs(dirOf(path)),
    pids: (path) => treePids(dirOf(path)),
    memoryUsage: (path) => BigInt(readTrim(dirOf(path), "memory.current")),
    dirs: (path) => [dirOf(path)],
    memoryDir: dirOf,
    cpuAccountingDir: dirOf,
  };
}

function childDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return [];
    throw new CgroupError(`failed to list ${dir}: ${(err as Error).message}`, errnoOf(err));
  }
}

function treePids(dir: string): number[] {
  if (!existsSync(dir)) return [];
  const own = (() => {
    try {
      return readTrim(dir, "cgroup.procs").split("\n").filter((l) => l !== "").map(Number);
    } catch {
      return [];
    }
  })();
  return [...own, ...childDirs(dir).flatMap((c) => treePids(join(dir, c)))];
}

/** Children first: a cgroup directory goes only once it has none (rmdir, never unlink its files). */
function removeTree(dir: string): void {
  for (const child of childDirs(dir)) removeTree(join(dir, child));
  try {
    rmdirSync(dir);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw new CgroupError(`failed to remove cgroup ${dir}: ${(err as Error).message}`, errnoOf(err));
  }
}
