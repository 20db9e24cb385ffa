/**
 * The node's own numbers, read where cadvisor's root container reads them when there is no
 * cgroup to ask: CPU time and boot time from /proc/stat, memory from /proc/meminfo and
 * /proc/vmstat, filesystems from statfs, and a directory's disk usage as `du` counts it (the
 * kubelet's MetricsDu, used for container logs). The parsers are pure; the readers do the I/O.
 */
import { lstat, readdir, readFile, statfs } from "node:fs/promises";
import { join } from "node:path";
import { metaTime, type DiskUsage, type FsInfo, type MemoryStats, type SwapStats } from "./types.ts";

/** USER_HZ, the unit of /proc/stat: 100 on every Linux architecture bunlet runs on. */
const NS_PER_TICK = 10_000_000n;

export interface ProcStat {
  /** Core-nanoseconds spent busy (user, nice, system, irq, softirq, steal) since boot. */
  usageCoreNanoSeconds: bigint;
  /** Unix seconds. */
  bootTime: number;
}

/** /proc/stat's aggregate "cpu" line and btime. */
export function parseProcStat(text: string): ProcStat | undefined {
  const cpu = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(BigInt);
  const btime = /^btime\s+(\d+)$/m.exec(text)?.[1];
  if (!cpu || cpu.length < 8 || !btime) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = cpu as [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  return { usageCoreNanoSeconds: (user + nice + system + irq + softirq + steal) * NS_PER_TICK, bootTime: Number(btime) };
}

/** "Key: value [kB]" lines (/proc/meminfo) or "key value" lines (/proc/vmstat), in bytes where kB. */
export function parseKeyValues(text: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const line of text.split("\n")) {
    const m = /^([\w()]+):?\s+(\d+)(\s+kB)?$/.exec(line.trim());
    if (m) out.set(m[1]!, BigInt(m[2]!) * (m[3] ? 1024n : 1n));
  }
  return out;
}

/**
 * The node's memory as cadvisor's root container reports it: usage is what is not free, the
 * working set is usage minus the inactive file cache, available is capacity minus the working set.
 */
export function nodeMemory(meminfo: Map<string, bigint>, vmstat: Map<string, bigint>, nowMs: number): MemoryStats | undefined {
  const total = meminfo.get("MemTotal");
  const free = meminfo.get("MemFree");
  if (total === undefined || free === undefined) return undefined;
  const usageBytes = total - free;
  const inactiveFile = meminfo.get("Inactive(file)") ?? 0n;
  const workingSetBytes = usageBytes > inactiveFile ? usageBytes - inactiveFile : 0n;
  const out: MemoryStats = { time: metaTime(nowMs), availableBytes: total - workingSetBytes, usageBytes, workingSetBytes };
  const rss = meminfo.get("AnonPages");
  if (rss !== undefined) out.rssBytes = rss;
  const faults = vmstat.get("pgfault");
  if (faults !== undefined) out.pageFaults = faults;
  const major = vmstat.get("pgmajfault");
  if (major !== undefined) out.majorPageFaults = major;
  return out;
}

/**
 * The node's swap from /proc/meminfo (what cadvisor reports for the root container): used is
 * SwapTotal − SwapFree, available SwapFree. A node without swap configured still has the lines
 * (zeros), as the kubelet still reports node_swap_usage_bytes 0.
 */
export function nodeSwap(meminfo: Map<string, bigint>, nowMs: number): SwapStats | undefined {
  const total = meminfo.get("SwapTotal");
  const free = meminfo.get("SwapFree");
  if (total === undefined || free === undefined) return undefined;
  return { time: metaTime(nowMs), swapAvailableBytes: free, swapUsageBytes: total > free ? total - free : 0n };
}

export const readProc = (name: string): Promise<string> => readFile(join("/proc", name), "utf8");

/** statfs of the filesystem holding `path`, as cadvisor's FsInfo. */
export async function fsInfoOf(path: string, nowMs: number): Promise<FsInfo> {
  const s = await statfs(path, { bigint: true });
  return {
    time: nowMs,
    capacityBytes: s.blocks * s.bsize,
    availableBytes: s.bavail * s.bsize,
    usedBytes: (s.blocks - s.bfree) * s.bsize,
    inodes: s.files,
    inodesFree: s.ffree,
  };
}

/** A file removed while it is being counted (a rotated log) counts as absent; other errors stand. */
function unlessGone(err: unknown): undefined {
  if ((err as { code?: unknown }).code === "ENOENT") return undefined;
  throw err;
}

/** Bytes allocated (512-byte blocks, as du) and inodes under `dir`, itself included; undefined when it does not exist. */
export async function diskUsage(dir: string): Promise<DiskUsage | undefined> {
  const top = await lstat(dir, { bigint: true }).catch(unlessGone);
  if (!top) return undefined;
  const usage = { usedBytes: top.blocks * 512n, inodesUsed: 1n };
  if (!top.isDirectory()) return usage;
  for (const entry of (await readdir(dir).catch(unlessGone)) ?? []) {
    const below = await diskUsage(join(dir, entry));
    if (!below) continue;
    usage.usedBytes += below.usedBytes;
    usage.inodesUsed += below.inodesUsed;
  }
  return usage;
}
