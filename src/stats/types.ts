/**
 * The kubelet's Summary API (k8s.io/kubelet/pkg/apis/stats/v1alpha1, types.go) as JSON shapes.
 * Counters and sizes are uint64 in Go and stay bigint here, so a node's cumulative CPU time keeps
 * every digit (summaryJson writes them as JSON numbers). A field bunlet cannot compute is left out,
 * as the kubelet leaves out a nil pointer; times are metav1.Time strings (RFC 3339, seconds).
 */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  fs?: FsStats;
  runtime?: { imageFs?: FsStats };
  rlimit?: RlimitStats;
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
  "ephemeral-storage"?: FsStats;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
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

/** metav1.Time's JSON: RFC 3339 in UTC with whole seconds. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** A Summary (or MachineInfo) as the kubelet writes it: uint64 fields as exact JSON numbers. */
export function statsJson(value: object): string {
  const raw = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? raw(v.toString()) : v));
}
