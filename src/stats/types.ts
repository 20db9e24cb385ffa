/**
 * The kubelet's Summary API (k8s.io/kubelet/pkg/apis/stats/v1alpha1, types.go) as JSON shapes.
 * Counters and sizes are uint64 in Go and stay bigint here, so a node's cumulative CPU time keeps
 * every digit (summaryJson writes them as JSON numbers). A field bunlet cannot compute is left out,
 * as the kubelet leaves out a nil pointer. Times are RFC 3339 strings that keep the sample's
 * milliseconds (the metric endpoints' timestamps and metrics-server's rates need them); statsJson
 * writes them as metav1.Time does, in whole seconds.
 */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface NodeStats {
  nodeName: string;
  /** kubelet, runtime, pods (and misc): their cgroups' CPU and memory. */
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  fs?: FsStats;
  runtime?: { imageFs?: FsStats };
  rlimit?: RlimitStats;
  swap?: SwapStats;
}

export interface SwapStats {
  time: string;
  swapAvailableBytes?: bigint;
  swapUsageBytes?: bigint;
}

export interface RlimitStats {
  time: string;
  maxpid?: bigint;
  curproc?: bigint;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  swap?: SwapStats;
  "ephemeral-storage"?: FsStats;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
  swap?: SwapStats;
}

export interface CpuStats {
  time: string;
  usageNanoCores?: bigint;
  usageCoreNanoSeconds?: bigint;
}

export interface MemoryStats {
  time: string;
  availableBytes?: bigint;
  usageBytes?: bigint;
  workingSetBytes?: bigint;
  rssBytes?: bigint;
  pageFaults?: bigint;
  majorPageFaults?: bigint;
}

export interface FsStats {
  time: string;
  availableBytes?: bigint;
  capacityBytes?: bigint;
  usedBytes?: bigint;
  inodesFree?: bigint;
  inodes?: bigint;
  inodesUsed?: bigint;
}

/** A filesystem's size as statfs reports it (cadvisor's FsInfo): what FsStats takes from the disk. */
export interface FsInfo {
  /** Unix ms. */
  time: number;
  capacityBytes: bigint;
  availableBytes: bigint;
  usedBytes: bigint;
  inodes: bigint;
  inodesFree: bigint;
}

/** Bytes and inodes a directory tree takes (the kubelet's MetricsDu). */
export interface DiskUsage {
  usedBytes: bigint;
  inodesUsed: bigint;
}

/** A stats time: RFC 3339 in UTC, with milliseconds when there are any. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString().replace(".000Z", "Z");
}

/** Unix ms of a stats time. */
export const timeMs = (time: string): number => Date.parse(time);

/** metav1.Time's JSON: whole seconds. */
const wholeSeconds = (time: string) => time.replace(/\.\d+Z$/, "Z");

/** A Summary (or MachineInfo) as the kubelet writes it: uint64 fields as exact JSON numbers, times in whole seconds. */
export function statsJson(value: object): string {
  const raw = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(value, (key, v: unknown) => {
    if (typeof v === "bigint") return raw(v.toString());
    if ((key === "time" || key === "startTime") && typeof v === "string") return wholeSeconds(v);
    return v;
  });
}
