/**
 * What cAdvisor reads from a container's cgroup beyond the CRI's usage figures, for the
 * dashboards' CPU-throttling and memory panels: the user/system CPU split, CFS throttling (only
 * when a CPU quota is set, as cAdvisor shows it), page cache, mapped files, swap, the limit-hit
 * count and peak usage, and the spec (CPU shares, period and quota; memory limit, 0 when there is
 * none). v2: cpu.stat, cpu.max, cpu.weight (as shares), memory.stat, memory.swap.current,
 * memory.events, memory.peak, memory.max; v1: cpuacct.stat (USER_HZ ticks), cpu.stat,
 * cpu.cfs_quota_us/cfs_period_us, cpu.shares, memory.stat total_*, memory.failcnt,
 * memory.max_usage_in_bytes, memory.limit_in_bytes. A file the kernel does not have leaves its
 * figure out. cgroupfs files are read synchronously (cgroup.ts says why).
 */
import { join } from "node:path";
import { readCgroupFile as read, statField } from "./cgroup.ts";

export interface CgroupExtras {
  cpu: { userNs: bigint; systemNs: bigint };
  /** Present only when the cgroup has a CPU quota. */
  cfs?: { periods: bigint; throttledPeriods: bigint; throttledNs: bigint };
  memory: { cache: bigint; mappedFile: bigint; swap?: bigint; failcnt?: bigint; maxUsage?: bigint };
  spec: { cpuShares: bigint; cpuPeriod?: bigint; cpuQuota?: bigint; memoryLimit: bigint };
}

/** USER_HZ ticks in nanoseconds. */
const NS_PER_TICK = 10_000_000n;
/** cAdvisor shows a limit above 2^62 (unlimited) as 0. */
const UNLIMITED = 1n << 62n;

function readOr(path: string): string | undefined {
  try {
    return read(path);
  } catch {
    return undefined;
  }
}
const int = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? BigInt(v) : undefined);

const limit = (v: bigint | undefined) => (v === undefined || v > UNLIMITED ? 0n : v);

/** cpu.weight back to cpu.shares, as cAdvisor converts it (the inverse of runc's mapping). */
export function weightToShares(weight: bigint): bigint {
  return 2n + ((weight - 1n) * 262142n) / 9999n;
}

function v2(dir: string): CgroupExtras {
  const cpu = read(join(dir, "cpu.stat"));
  const [quota, period] = (readOr(join(dir, "cpu.max")) ?? "max").split(/\s+/);
  const hasQuota = quota !== undefined && quota !== "max";
  const mem = readOr(join(dir, "memory.stat"));
  const max = readOr(join(dir, "memory.max"));
  return {
    cpu: { userNs: (statField(cpu, "user_usec") ?? 0n) * 1000n, systemNs: (statField(cpu, "system_usec") ?? 0n) * 1000n },
    ...(hasQuota && {
      cfs: { periods: statField(cpu, "nr_periods") ?? 0n, throttledPeriods: statField(cpu, "nr_throttled") ?? 0n, throttledNs: (statField(cpu, "throttled_usec") ?? 0n) * 1000n },
    }),
    memory: {
      cache: statField(mem, "file") ?? 0n,
      mappedFile: statField(mem, "file_mapped") ?? 0n,
      swap: int(readOr(join(dir, "memory.swap.current"))),
      failcnt: statField(readOr(join(dir, "memory.events")), "max"),
      maxUsage: int(readOr(join(dir, "memory.peak"))),
    },
    spec: {
      cpuShares: weightToShares(int(readOr(join(dir, "cpu.weight"))) ?? 100n),
      ...(hasQuota && { cpuQuota: BigInt(quota), cpuPeriod: int(period) }),
      memoryLimit: max === undefined || max === "max" ? 0n : limit(int(max)),
    },
  };
}

function v1(root: string, name: string): CgroupExtras {
  const acct = read(join(root, "cpuacct", name, "cpuacct.stat"));
  const cpuDir = join(root, "cpu", name);
  const cpu = readOr(join(cpuDir, "cpu.stat"));
  const quota = Number(readOr(join(cpuDir, "cpu.cfs_quota_us")) ?? -1);
  const memDir = join(root, "memory", name);
  const mem = readOr(join(memDir, "memory.stat"));
  return {
    cpu: { userNs: (statField(acct, "user") ?? 0n) * NS_PER_TICK, systemNs: (statField(acct, "system") ?? 0n) * NS_PER_TICK },
    ...(quota > 0 && { cfs: { periods: statField(cpu, "nr_periods") ?? 0n, throttledPeriods: statField(cpu, "nr_throttled") ?? 0n, throttledNs: statField(cpu, "throttled_time") ?? 0n } }),
    memory: {
      cache: statField(mem, "total_cache") ?? 0n,
      mappedFile: statField(mem, "total_mapped_file") ?? 0n,
      swap: statField(mem, "total_swap"),
      failcnt: int(readOr(join(memDir, "memory.failcnt"))),
      maxUsage: int(readOr(join(memDir, "memory.max_usage_in_bytes"))),
    },
    spec: {
      cpuShares: int(readOr(join(cpuDir, "cpu.shares"))) ?? 1024n,
      ...(quota > 0 && { cpuQuota: BigInt(quota), cpuPeriod: int(readOr(join(cpuDir, "cpu.cfs_period_us"))) }),
      memoryLimit: limit(int(readOr(join(memDir, "memory.limit_in_bytes")))),
    },
  };
}

/** The extras of the cgroup `name` ("/k8s.io/abc") under `root`; undefined when it is not there. */
export function cgroupExtras(name: string, root = "/sys/fs/cgroup"): CgroupExtras | undefined {
  try {
    return v2(join(root, name));
  } catch {
    // Not v2 (or gone): try the v1 hierarchies.
  }
  try {
    return v1(root, name);
  } catch {
    return undefined;
  }
}
