/**
 * What the Summary reads from the container manager's cgroups (the kubelet's cadvisor-backed
 * view): a pod's CPU and memory from its pod cgroup, which holds the sandbox (pause) as well as
 * the containers, and the node's system containers, `kubelet`, `runtime`, `pods` (kubepods) and
 * `misc` (--system-cgroups), each from its cgroup, as summary_sys_containers.go lists them. A
 * cgroup that cannot be read leaves the CRI's numbers (pods) or the entry (system containers) out.
 */
import { cgroupStats, type CgroupStats } from "./cgroup.ts";
import type { CpuUsageCache } from "./cpu-usage.ts";
import { metaTime, type ContainerStats, type CpuStats, type MemoryStats, type PodStats } from "./types.ts";

/** The container manager's cgroups, as cgroupfs paths ("/kubepods/burstable/pod<uid>"). */
export interface CgroupSource {
  /** The pod cgroups on the host by pod UID (none when cgroupsPerQOS is off). */
  podCgroups(): ReadonlyMap<string, string>;
  /** System container name ("kubelet", "runtime", "pods", "misc") → its cgroup; those not known are left out. */
  systemContainers(): { name: string; cgroup: string; startTimeMs?: number }[];
}

function cpuAndMemory(stats: CgroupStats, key: string, cpu: CpuUsageCache, nowMs: number): { cpu: CpuStats; memory: MemoryStats } {
  const time = metaTime(nowMs);
  const usageNanoCores = cpu.update(key, { timestampNs: 0n, usageCoreNanoSeconds: stats.usageCoreNanoSeconds });
  return {
    cpu: { time, ...(usageNanoCores !== undefined && { usageNanoCores }), usageCoreNanoSeconds: stats.usageCoreNanoSeconds },
    memory: {
      time,
      // As cadvisor: what is left under the limit, when there is one.
      ...(stats.limitBytes !== undefined && { availableBytes: stats.limitBytes > stats.workingSetBytes ? stats.limitBytes - stats.workingSetBytes : 0n }),
      usageBytes: stats.usageBytes,
      workingSetBytes: stats.workingSetBytes,
      rssBytes: stats.rssBytes,
    },
  };
}

/** Replaces each pod's CPU and memory with its pod cgroup's, pause included. */
export function podStatsFromCgroups(pods: PodStats[], source: CgroupSource, cpu: CpuUsageCache, nowMs: number, root?: string): void {
  const cgroups = source.podCgroups();
  for (const pod of pods) {
    const cgroup = cgroups.get(pod.podRef.uid);
    if (cgroup === undefined) continue;
    const stats = cgroupStats(cgroup, root);
    if (!stats) continue;
    Object.assign(pod, cpuAndMemory(stats, `pod-cgroup:${pod.podRef.uid}`, cpu, nowMs));
  }
}

/** GetSystemContainersStats: one entry per known system container, no filesystems. */
export function systemContainerStats(source: CgroupSource, cpu: CpuUsageCache, nowMs: number, root?: string): ContainerStats[] {
  const out: ContainerStats[] = [];
  for (const sys of source.systemContainers()) {
    const stats = cgroupStats(sys.cgroup, root);
    if (!stats) continue;
    out.push({ name: sys.name, startTime: metaTime(sys.startTimeMs ?? nowMs), ...cpuAndMemory(stats, `system:${sys.name}`, cpu, nowMs) });
  }
  return out;
}
