/**
 * The system containers /stats/summary reports (summary_sys_containers.go): kubelet
 * (--kubelet-cgroups, else bunlet's own cgroup when its cpu and memory cgroups are the same one,
 * as the kubelet's getContainer requires), runtime (--runtime-cgroups), misc (--system-cgroups)
 * and pods (kubepods).
 */

export interface SystemContainer {
  name: string;
  cgroup: string;
  startTimeMs?: number;
}

export interface SystemCgroups {
  kubeletCgroups: string;
  runtimeCgroups: string;
  systemCgroups: string;
}

/** `procSelfCgroup` is /proc/self/cgroup's text, for bunlet's own cgroup. */
export function systemContainers(flags: SystemCgroups, kubepods: string, startedAt: number, version: 1 | 2, procSelfCgroup: string): SystemContainer[] {
  const out: SystemContainer[] = [];
  const own = flags.kubeletCgroups || ownCgroup(procSelfCgroup, version);
  if (own) out.push({ name: "kubelet", cgroup: own, startTimeMs: startedAt });
  if (flags.runtimeCgroups) out.push({ name: "runtime", cgroup: flags.runtimeCgroups });
  if (flags.systemCgroups) out.push({ name: "misc", cgroup: flags.systemCgroups });
  out.push({ name: "pods", cgroup: kubepods });
  return out;
}

/** getContainer: the unified cgroup (v2), or the cpu cgroup when memory's is the same (v1). */
export function ownCgroup(procCgroup: string, version: 1 | 2): string | undefined {
  const byController = new Map<string, string>();
  for (const line of procCgroup.split("\n")) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    for (const c of (controllers ?? "").split(",")) byController.set(c, path);
  }
  if (version === 2) return byController.get("");
  const cpu = byController.get("cpu");
  return cpu !== undefined && cpu === byController.get("memory") ? cpu : undefined;
}
