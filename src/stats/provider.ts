/**
 * The stats provider behind /stats/summary, /spec/ and /metrics/cadvisor (cadvisor-source.ts): one Summary per request from the CRI (sandboxes,
 * containers, container stats, image filesystem) and the host (/proc, statfs). The containerd
 * releases bunlet supports have no ListPodSandboxStats (and bunlet's CRI proto leaves it out), so
 * pod CPU and memory come from the pod cgroup (pause included, as cadvisor reads it) when pods
 * have one, else they are the sums of their containers', the kubelet's fallback. Each request
 * refreshes the CPU samples, so usageNanoCores is the rate since the previous request (the kubelet
 * refreshes every 10 s from its eviction manager and serves the cached rate in between).
 */
import { join } from "node:path";
import { nanosToMs } from "../container/index.ts";
import type { CriClient } from "../cri/index.ts";
import type { Clock } from "../lib/index.ts";
import { podStatsFromCri } from "./convert.ts";
import { podStatsFromCgroups, systemContainerStats, type CgroupSource } from "./pod-cgroups.ts";
import { createCadvisorSource } from "./cadvisor-source.ts";
import { CpuUsageCache } from "./cpu-usage.ts";
import { diskUsage, fsInfoOf, nodeMemory, nodeSwap, parseKeyValues, parseProcStat, readProc } from "./host.ts";
import { machineInfo, type MachineInfo } from "./machine.ts";
import { metaTime, type DiskUsage, type FsInfo, type FsStats, type NodeStats, type PodStats, type Summary } from "./types.ts";

export interface StatsProviderDeps {
  cri: Pick<CriClient, "runtime" | "image">;
  clock: Clock;
  nodeName: string;
  /** The root dir (--root-dir): node.fs, and the capacity of logs and ephemeral storage. */
  rootDir: string;
  /** Where container logs live (--pod-logs-dir). */
  podLogsDir: string;
  /** The container manager's cgroups: pod CPU and memory from the pod cgroup, and the node's system containers. */
  cgroups?: CgroupSource;
}

export interface SummaryOptions {
  /** ?only_cpu_and_memory=true: node and pod CPU and memory only, no filesystems. */
  onlyCpuAndMemory?: boolean;
  /**
   * The node's figures only, `pods` empty: no runtime lists, no walk of the pods' directories
   * (the eviction manager's rounds that neither rank pods nor check their limits, image GC).
   */
  withoutPods?: boolean;
  signal?: AbortSignal;
}

export interface StatsProvider {
  summary(opts?: SummaryOptions): Promise<Summary>;
  /** cadvisor's MachineInfo for /spec/ (the parts bunlet reads). */
  machineInfo(): Promise<MachineInfo>;
  /** /metrics/cadvisor's Prometheus text. */
  cadvisorMetrics(signal?: AbortSignal): Promise<string>;
}

const NODE_CPU_KEY = "node";

const fsStats = (fs: FsInfo, used?: { usedBytes?: bigint; inodesUsed?: bigint }): FsStats => ({
  time: metaTime(fs.time),
  availableBytes: fs.availableBytes,
  capacityBytes: fs.capacityBytes,
  usedBytes: used ? used.usedBytes : fs.usedBytes,
  inodesFree: fs.inodesFree,
  inodes: fs.inodes,
  inodesUsed: used ? used.inodesUsed : fs.inodes - fs.inodesFree,
});

export function createStatsProvider(deps: StatsProviderDeps): StatsProvider {
  const { cri, clock } = deps;
  const cpu = new CpuUsageCache(clock);

  async function nodeStats(nowMs: number, withFs: boolean, imageFs: FsStats | undefined): Promise<NodeStats> {
    const [stat, meminfo, vmstat] = await Promise.all([readProc("stat"), readProc("meminfo"), readProc("vmstat")]);
    const proc = parseProcStat(stat);
    if (!proc) throw new Error("/proc/stat has no cpu line or btime");
    const node: NodeStats = { nodeName: deps.nodeName, startTime: metaTime(proc.bootTime * 1000) };
    const usageNanoCores = cpu.update(NODE_CPU_KEY, { timestampNs: 0n, usageCoreNanoSeconds: proc.usageCoreNanoSeconds });
    node.cpu = { time: metaTime(nowMs), ...(usageNanoCores !== undefined && { usageNanoCores }), usageCoreNanoSeconds: proc.usageCoreNanoSeconds };
    const memInfo = parseKeyValues(meminfo);
    const memory = nodeMemory(memInfo, parseKeyValues(vmstat), nowMs);
    if (memory) node.memory = memory;
    const swap = nodeSwap(memInfo, nowMs);
    if (swap) node.swap = swap;
    if (!withFs) return node;
    node.fs = fsStats(await fsInfoOf(deps.rootDir, nowMs));
    if (imageFs) node.runtime = { imageFs };
    const [pidMax, loadavg] = await Promise.all([readProc("sys/kernel/pid_max"), readProc("loadavg")]);
    const procs = /\d+\/(\d+)/.exec(loadavg)?.[1];
    node.rlimit = { time: metaTime(nowMs), maxpid: BigInt(pidMax.trim()), ...(procs && { curproc: BigInt(procs) }) };
    return node;
  }

  /** CRI ImageFsInfo's first image filesystem, with its capacity from statfs of its mountpoint. */
  async function imageFsStats(signal: AbortSignal | undefined, statfsOf: (mountpoint: string) => Promise<FsInfo | undefined>): Promise<FsStats | undefined> {
    const { imageFilesystems } = await cri.image.imageFsInfo({}, { signal });
    const fs = imageFilesystems[0];
    if (!fs) return undefined;
    const info = fs.fsId?.mountpoint ? await statfsOf(fs.fsId.mountpoint) : undefined;
    const time = metaTime(fs.timestamp > 0n ? nanosToMs(fs.timestamp) : clock.now());
    const usage = { usedBytes: fs.usedBytes?.value, inodesUsed: fs.inodesUsed?.value };
    const stats: FsStats = info ? { ...fsStats(info, usage), time } : { time, ...usage };
    return Object.fromEntries(Object.entries(stats).filter(([, v]) => v !== undefined)) as FsStats;
  }

  /** The node with its system containers (kubepods and the rest) when bunlet manages cgroups. */
  function withSystemContainers(node: NodeStats, nowMs: number): NodeStats {
    if (!deps.cgroups) return node;
    const systemContainers = systemContainerStats(deps.cgroups, cpu, nowMs);
    // The kubelet's field order: nodeName, systemContainers, startTime, ...
    const { nodeName, ...rest } = node;
    return { nodeName, systemContainers, ...rest };
  }

  const cadvisor = createCadvisorSource({ cri, clock, machineInfo: () => machineInfo(clock.now()) });

  return {
    machineInfo: () => machineInfo(clock.now()),
    cadvisorMetrics: (signal) => cadvisor.metrics(signal),
    async summary(opts = {}) {
      const { signal } = opts;
      const nowMs = clock.now();
      const withFs = !opts.onlyCpuAndMemory;
      // statfs once per filesystem per request. A mountpoint bunlet cannot see (the runtime's, in
      // another mount namespace, or not readable) leaves its capacity out, as the kubelet does;
      // any other failure fails the request.
      const statfsCache = new Map<string, Promise<FsInfo | undefined>>();
      const statfsOf = (path: string) => {
        let info = statfsCache.get(path);
        if (!info) statfsCache.set(path, (info = fsInfoOf(path, nowMs).catch(unlessUnreachable)));
        return info;
      };
      if (opts.withoutPods) {
        const node = await nodeStats(nowMs, withFs, withFs ? await imageFsStats(signal, statfsOf) : undefined);
        return { node: withSystemContainers(node, nowMs), pods: [] };
      }
      const [sandboxes, containers, stats, imageFs] = await Promise.all([
        cri.runtime.listPodSandbox({}, { signal }),
        cri.runtime.listContainers({}, { signal }),
        cri.runtime.listContainerStats({}, { signal }),
        withFs ? imageFsStats(signal, statfsOf) : undefined,
      ]);
      const node = await nodeStats(nowMs, withFs, imageFs);

      // Filesystem numbers the pure conversion looks up: statfs of writable layers' mountpoints, du of log dirs.
      const fsInfos = new Map<string, FsInfo | undefined>();
      const logUsages = new Map<string, DiskUsage | undefined>();
      const etcHostsUsages = new Map<string, DiskUsage | undefined>();
      const logDir = (pod: PodStats["podRef"], container: string) => join(deps.podLogsDir, `${pod.namespace}_${pod.name}_${pod.uid}`, container);
      if (withFs) {
        for (const s of stats.stats) {
          const mountpoint = s.writableLayer?.fsId?.mountpoint;
          if (mountpoint && !fsInfos.has(mountpoint)) fsInfos.set(mountpoint, await statfsOf(mountpoint));
        }
        const podOf = new Map(sandboxes.items.map((s) => [s.id, s.metadata]));
        for (const meta of podOf.values()) {
          if (meta?.uid && !etcHostsUsages.has(meta.uid)) etcHostsUsages.set(meta.uid, await diskUsage(join(deps.rootDir, "pods", meta.uid, "etc-hosts")));
        }
        for (const c of containers.containers) {
          const meta = podOf.get(c.podSandboxId);
          if (!meta || !c.metadata) continue;
          const dir = logDir(meta, c.metadata.name);
          if (!logUsages.has(dir)) logUsages.set(dir, await diskUsage(dir));
        }
      }
      const pods = podStatsFromCri(
        { sandboxes: sandboxes.items, containers: containers.containers, stats: stats.stats },
        {
          cpu,
          nowMs,
          ...(withFs && { rootFs: await statfsOf(deps.rootDir) }),
          fsInfo: (mountpoint) => fsInfos.get(mountpoint),
          logUsage: (pod, container) => logUsages.get(logDir(pod, container)),
          etcHostsUsage: (uid) => etcHostsUsages.get(uid),
        },
      );
      if (deps.cgroups) podStatsFromCgroups(pods, deps.cgroups, cpu, nowMs);
      const summaryNode = withSystemContainers(node, nowMs);
      cpu.prune();
      return { node: summaryNode, pods: opts.onlyCpuAndMemory ? pods.map(cpuAndMemoryOnly) : pods };
    },
  };
}

function unlessUnreachable(err: unknown): undefined {
  const code = (err as { code?: unknown }).code;
  if (code === "ENOENT" || code === "EACCES" || code === "EPERM") return undefined;
  throw err;
}

/** GetCPUAndMemoryStats' pod entries: no filesystems. */
function cpuAndMemoryOnly(pod: PodStats): PodStats {
  const { "ephemeral-storage": _storage, ...rest } = pod;
  return { ...rest, containers: pod.containers.map(({ rootfs: _rootfs, logs: _logs, ...c }) => c) };
}
