/**
 * The metrics that describe the node rather than any work: kubelet_node_name (the kubelet sets
 * it once in NewMainKubelet), kubelet_cgroup_version (kubelet_linux.go, from the host's cgroup
 * mode: 2 when /sys/fs/cgroup is the unified hierarchy, else 1), and kubelet_metrics_provider.
 */
import { existsSync } from "node:fs";
import type { Gauge } from "prom-client";

export interface NodeGauges {
  nodeName: Gauge<"node">;
  cgroupVersion: Gauge;
  metricsProvider: Gauge<"provider">;
}

export function setNodeMetrics(metrics: NodeGauges, nodeName: string, cgroupRoot = "/sys/fs/cgroup"): void {
  metrics.nodeName.set({ node: nodeName }, 1);
  // Container stats come from the CRI (ListContainerStats), as with PodAndContainerStatsFromCRI.
  metrics.metricsProvider.set({ provider: "cri" }, 1);
  metrics.cgroupVersion.set(existsSync(`${cgroupRoot}/cgroup.controllers`) ? 2 : 1);
}
