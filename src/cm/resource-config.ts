/**
 * The values a cgroup gets (the kubelet's cm.ResourceConfig) and the pod cgroup's values
 * (helpers_linux.go ResourceConfigForPod): CPU shares from the sum of requests, CFS quota from
 * the sum of limits only when every container has a CPU limit (or the pod-level limit is set),
 * memory likewise, hugepages from the requests; BestEffort pods get the minimum shares only.
 * Unset fields are left alone when the values are written, as libcontainer does.
 */
import { computePodQOS, resourceQuantity, type Pod } from "../api/index.ts";
import { hugePageLimits, isPodLevelResourcesSet, podLimits, podRequests } from "./pod-resources.ts";

export interface ResourceConfig {
  /** Bytes; the cgroup's memory limit. */
  memory?: bigint;
  /** cpu.shares (v1); written as cpu.weight on v2. */
  cpuShares?: bigint;
  /** cpu.cfs_quota_us (v1) / the first field of cpu.max (v2); -1 = no quota. */
  cpuQuota?: bigint;
  /** cpu.cfs_period_us, microseconds. */
  cpuPeriod?: bigint;
  /** pids.max; -1 = no limit. */
  pidsLimit?: bigint;
  /** Page size in bytes → limit in bytes; a page size the host has and this omits is limited to 0. */
  hugePageLimit?: Map<bigint, bigint>;
}

export const MIN_SHARES = 2n;
const MAX_SHARES = 262144n;
const SHARES_PER_CPU = 1024n;
const MILLI_CPU_TO_CPU = 1000n;
/** 100 ms, the default cpuCFSQuotaPeriod, in microseconds. */
export const QUOTA_PERIOD_US = 100_000n;
const MIN_QUOTA_PERIOD_US = 1000n;

/** MilliCPUToShares. */
export function milliCpuToShares(milli: bigint): bigint {
  if (milli === 0n) return MIN_SHARES;
  const shares = (milli * SHARES_PER_CPU) / MILLI_CPU_TO_CPU;
  if (shares < MIN_SHARES) return MIN_SHARES;
  return shares > MAX_SHARES ? MAX_SHARES : shares;
}

/** MilliCPUToQuota: 0 (no quota) without a limit, at least 1 ms otherwise. */
export function milliCpuToQuota(milli: bigint, periodUs: bigint): bigint {
  if (milli === 0n) return 0n;
  const quota = (milli * periodUs) / MILLI_CPU_TO_CPU;
  return quota < MIN_QUOTA_PERIOD_US ? MIN_QUOTA_PERIOD_US : quota;
}

/** getCPUWeight: shares [2, 262144] → cgroup v2 weight [1, 10000]. */
export function sharesToWeight(shares: bigint): bigint {
  if (shares >= MAX_SHARES) return 10000n;
  return 1n + ((shares - 2n) * 9999n) / 262142n;
}

export interface PodCgroupOptions {
  /** cpuCFSQuota: false leaves CPU limits unenforced (quota -1). */
  enforceCPULimits: boolean;
  /** cpuCFSQuotaPeriod in microseconds. */
  cpuPeriodUs: bigint;
}

/** ResourceConfigForPod (without MemoryQoS, which is alpha and off). */
export function resourceConfigForPod(pod: Pod, opts: PodCgroupOptions): ResourceConfig {
  const reqs = podRequests(pod);
  const limits = podLimits(pod);
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const hasLimit = (limitList: Readonly<Record<string, string | number>> | undefined, name: string) => !resourceQuantity(limitList, name).isZero();
  let cpuLimitsDeclared = all.every((c) => hasLimit(c.resources?.limits, "cpu"));
  let memoryLimitsDeclared = all.every((c) => hasLimit(c.resources?.limits, "memory"));
  if (isPodLevelResourcesSet(pod)) {
    if (hasLimit(pod.spec.resources?.limits, "cpu")) cpuLimitsDeclared = true;
    if (hasLimit(pod.spec.resources?.limits, "memory")) memoryLimitsDeclared = true;
  }
  const cpuShares = milliCpuToShares(reqs.get("cpu") ?? 0n);
  const cpuQuota = opts.enforceCPULimits ? milliCpuToQuota(limits.get("cpu") ?? 0n, opts.cpuPeriodUs) : -1n;
  const memory = limits.get("memory") ?? 0n;
  const hugePageLimit = hugePageLimits(reqs);
  switch (computePodQOS(pod)) {
    case "Guaranteed":
      return { cpuShares, cpuQuota, cpuPeriod: opts.cpuPeriodUs, memory, hugePageLimit };
    case "Burstable":
      return {
        cpuShares,
        ...(cpuLimitsDeclared ? { cpuQuota, cpuPeriod: opts.cpuPeriodUs } : {}),
        ...(memoryLimitsDeclared ? { memory } : {}),
        hugePageLimit,
      };
    case "BestEffort":
      return { cpuShares: MIN_SHARES, hugePageLimit };
  }
}
