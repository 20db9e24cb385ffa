/**
 * CRI listings and stats → the Summary's pod entries, as the kubelet's CRI stats provider builds
 * them when the runtime has no pod sandbox stats (cri_stats_provider.go, listPodStatsPartiallyFromCRI
 * without cadvisor): per pod UID the ready sandbox (else the newest), per pod and container name
 * the running container (else the newest), each container's CPU, memory, writable layer and log
 * usage, and the pod's CPU and memory as the sum of its containers (addPodCPUMemoryStats). A pod
 * appears once one of its containers has stats. Pure but for the CPU sample cache it updates.
 */
import { nanosToMs } from "../container/index.ts";
import { ContainerState, PodSandboxState, type Container, type ContainerStats as CriContainerStats, type PodSandbox } from "../cri/index.ts";
import type { CpuUsageCache } from "./cpu-usage.ts";
import { metaTime, timeMs, type ContainerStats, type CpuStats, type DiskUsage, type FsInfo, type FsStats, type MemoryStats, type PodStats, type SwapStats } from "./types.ts";

export interface CriListing {
  sandboxes: readonly PodSandbox[];
  containers: readonly Container[];
  stats: readonly CriContainerStats[];
}

export interface PodStatsSources {
  cpu: CpuUsageCache;
  /** The filesystem of the root dir: capacity of container logs and of the pod's ephemeral storage. */
  rootFs?: FsInfo;
  /** The filesystem mounted at a writable layer's fsId (the snapshotter's), if statfs answered. */
  fsInfo(mountpoint: string): FsInfo | undefined;
  /** What a container's log directory takes on disk, if it exists. */
  logUsage(pod: PodStats["podRef"], container: string): DiskUsage | undefined;
  /** What the pod's managed /etc/hosts (`<pod dir>/etc-hosts`) takes on disk, if it exists. */
  etcHostsUsage?(podUid: string): DiskUsage | undefined;
  /** Unix ms: the time of stats that carry none. */
  nowMs: number;
}

/** Keeps, per key, the entries `keep` picks, else the newest; input order is irrelevant. */
function latestPer<T extends { createdAt: bigint }>(items: readonly T[], key: (t: T) => string, keep: (t: T) => boolean): T[] {
  const groups = new Map<string, T[]>();
  for (const item of [...items].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return [...groups.values()].flatMap((group) => {
    const kept = group.filter(keep);
    return kept.length > 0 ? kept : [group[group.length - 1]!];
  });
}

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function cpuStats(s: CriContainerStats, sources: PodStatsSources): CpuStats | undefined {
  const cpu = s.cpu;
  if (!cpu) return undefined;
  const total = cpu.usageCoreNanoSeconds?.value;
  const usageNanoCores =
    total === undefined ? undefined : sources.cpu.update(s.attributes?.id ?? "", { timestampNs: cpu.timestamp, usageCoreNanoSeconds: total });
  return defined({ time: metaTime(cpu.timestamp > 0n ? nanosToMs(cpu.timestamp) : sources.nowMs), usageNanoCores, usageCoreNanoSeconds: total });
}

function memoryStats(s: CriContainerStats, nowMs: number): MemoryStats | undefined {
  const m = s.memory;
  if (!m) return undefined;
  return defined({
    time: metaTime(m.timestamp > 0n ? nanosToMs(m.timestamp) : nowMs),
    availableBytes: m.availableBytes?.value,
    usageBytes: m.usageBytes?.value,
    workingSetBytes: m.workingSetBytes?.value,
    rssBytes: m.rssBytes?.value,
    pageFaults: m.pageFaults?.value,
    majorPageFaults: m.majorPageFaults?.value,
  });
}

function swapStats(s: CriContainerStats, nowMs: number): SwapStats | undefined {
  const w = s.swap;
  if (!w) return undefined;
  return defined({
    time: metaTime(w.timestamp > 0n ? nanosToMs(w.timestamp) : nowMs),
    swapAvailableBytes: w.swapAvailableBytes?.value,
    swapUsageBytes: w.swapUsageBytes?.value,
  });
}

/** Capacity fields from statfs; usage fields come from the caller. */
const capacityOf = (fs: FsInfo | undefined) =>
  fs && { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes, inodesFree: fs.inodesFree, inodes: fs.inodes };

function rootfsStats(s: CriContainerStats, sources: PodStatsSources): FsStats | undefined {
  const layer = s.writableLayer;
  if (!layer) return undefined;
  const mountpoint = layer.fsId?.mountpoint;
  return defined({
    time: metaTime(layer.timestamp > 0n ? nanosToMs(layer.timestamp) : sources.nowMs),
    ...capacityOf(mountpoint ? sources.fsInfo(mountpoint) : undefined),
    usedBytes: layer.usedBytes?.value,
    inodesUsed: layer.inodesUsed?.value,
  });
}

function logStats(podRef: PodStats["podRef"], container: string, sources: PodStatsSources): FsStats | undefined {
  const usage = sources.logUsage(podRef, container);
  if (!usage && !sources.rootFs) return undefined;
  return defined({ time: metaTime(sources.nowMs), ...capacityOf(sources.rootFs), usedBytes: usage?.usedBytes, inodesUsed: usage?.inodesUsed });
}

/** Sums the fields any part has; a field no part has stays out. The time is the newest part's. */
function sum<T extends { time: string }>(parts: readonly (T | undefined)[], fields: readonly (keyof T)[]): T | undefined {
  const present = parts.filter((p): p is T => p !== undefined);
  if (present.length === 0) return undefined;
  const newest = present.reduce((a, b) => (timeMs(b.time) > timeMs(a.time) ? b : a));
  const out: Record<string, unknown> = { time: newest.time };
  for (const field of fields) {
    const values = present.map((p) => p[field]).filter((v): v is T[keyof T] & bigint => typeof v === "bigint");
    if (values.length > 0) out[field as string] = values.reduce((a, b) => a + b, 0n);
  }
  return out as T;
}

const memoryFields = ["availableBytes", "usageBytes", "workingSetBytes", "rssBytes", "pageFaults", "majorPageFaults"] as const;

/**
 * The pod's ephemeral storage (calcEphemeralStorage): its containers' writable layers and logs,
 * and its managed /etc/hosts, which a container can write to like any file (CVE-2020-8557: left
 * out, a pod filled the node's disk through it unseen by eviction).
 */
function ephemeralStorage(podUid: string, containers: readonly ContainerStats[], sources: PodStatsSources): FsStats | undefined {
  const etcHosts = sources.etcHostsUsage?.(podUid);
  const used = sum(
    [...containers.flatMap((c) => [c.rootfs, c.logs]), etcHosts && { time: metaTime(sources.nowMs), ...etcHosts }],
    ["usedBytes", "inodesUsed"],
  );
  if (!used && !sources.rootFs) return undefined;
  return defined({
    time: metaTime(sources.rootFs?.time ?? sources.nowMs),
    ...capacityOf(sources.rootFs),
    usedBytes: used?.usedBytes,
    inodesUsed: used?.inodesUsed,
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function podStatsFromCri(listing: CriListing, sources: PodStatsSources): PodStats[] {
  const sandboxes = new Map(
    latestPer(listing.sandboxes, (s) => s.metadata?.uid ?? s.id, (s) => s.state === PodSandboxState.SANDBOX_READY).map((s) => [s.id, s]),
  );
  const containers = new Map(
    latestPer(
      listing.containers,
      (c) => `${c.podSandboxId}/${c.metadata?.name ?? c.id}`,
      (c) => c.state === ContainerState.CONTAINER_RUNNING,
    ).map((c) => [c.id, c]),
  );
  const pods = new Map<string, PodStats>();
  for (const s of listing.stats) {
    const container = containers.get(s.attributes?.id ?? "");
    const sandbox = container && sandboxes.get(container.podSandboxId);
    if (!container || !sandbox) continue;
    let pod = pods.get(sandbox.id);
    if (!pod) {
      const meta = sandbox.metadata;
      pod = { podRef: { name: meta?.name ?? "", namespace: meta?.namespace ?? "", uid: meta?.uid ?? "" }, startTime: metaTime(nanosToMs(sandbox.createdAt)), containers: [] };
      pods.set(sandbox.id, pod);
    }
    const name = s.attributes?.metadata?.name ?? container.metadata?.name ?? "";
    pod.containers.push(
      defined({
        name,
        startTime: metaTime(nanosToMs(container.createdAt)),
        cpu: cpuStats(s, sources),
        memory: memoryStats(s, sources.nowMs),
        rootfs: rootfsStats(s, sources),
        logs: logStats(pod.podRef, name, sources),
        swap: swapStats(s, sources.nowMs),
      }),
    );
  }
  return [...pods.values()]
    .map((pod) => {
      const containerStats = pod.containers.sort((a, b) => compare(a.name, b.name));
      return defined({
        ...pod,
        cpu: sum(
          containerStats.map((c) => c.cpu),
          ["usageNanoCores", "usageCoreNanoSeconds"],
        ),
        memory: sum(
          containerStats.map((c) => c.memory),
          memoryFields,
        ),
        swap: sum(
          containerStats.map((c) => c.swap),
          ["swapAvailableBytes", "swapUsageBytes"],
        ),
        "ephemeral-storage": ephemeralStorage(pod.podRef.uid, containerStats, sources),
      });
    })
    .sort((a, b) => compare(`${a.podRef.namespace}/${a.podRef.name}`, `${b.podRef.namespace}/${b.podRef.name}`));
}
