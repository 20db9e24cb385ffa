/**
 * /metrics/resource, the kubelet's resource metrics (pkg/kubelet/metrics/collectors/resource_metrics.go),
 * made per scrape from the CPU-and-memory Summary, as the kubelet's collector makes them from
 * GetCPUAndMemoryStats: CPU counters in core-seconds and working sets in bytes for the node, each
 * container and each pod, swap where the runtime or /proc reports it, container start times, and
 * resource_scrape_error (1 when the Summary failed, then nothing else). Every sample carries the
 * time of the stats it comes from, the timestamp metrics-server computes its rates with; the
 * start time carries none, as in the kubelet. The help texts carry component-base's stability
 * annotation. scrape_error (deprecated in 1.29, ALPHA) is hidden in the kubelet since 1.30, so
 * it is not served here either.
 */
import { exposition, type MetricFamily, type Sample } from "./exposition.ts";
import { timeMs, type PodStats, type Summary } from "./types.ts";

const NS_PER_S = 1e9;

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge";
}

const families = {
  nodeCpu: { name: "node_cpu_usage_seconds_total", help: "[STABLE] Cumulative cpu time consumed by the node in core-seconds", type: "counter" },
  nodeMemory: { name: "node_memory_working_set_bytes", help: "[STABLE] Current working set of the node in bytes", type: "gauge" },
  nodeSwap: { name: "node_swap_usage_bytes", help: "[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems", type: "gauge" },
  containerCpu: { name: "container_cpu_usage_seconds_total", help: "[STABLE] Cumulative cpu time consumed by the container in core-seconds", type: "counter" },
  containerMemory: { name: "container_memory_working_set_bytes", help: "[STABLE] Current working set of the container in bytes", type: "gauge" },
  containerSwap: {
    name: "container_swap_usage_bytes",
    help: "[ALPHA] Current amount of the container swap usage in bytes. Reported only on non-windows systems",
    type: "gauge",
  },
  containerSwapLimit: {
    name: "container_swap_limit_bytes",
    help: "[ALPHA] Current amount of the container swap limit in bytes. Reported only on non-windows systems",
    type: "gauge",
  },
  containerStart: { name: "container_start_time_seconds", help: "[STABLE] Start time of the container since unix epoch in seconds", type: "gauge" },
  podCpu: { name: "pod_cpu_usage_seconds_total", help: "[STABLE] Cumulative cpu time consumed by the pod in core-seconds", type: "counter" },
  podMemory: { name: "pod_memory_working_set_bytes", help: "[STABLE] Current working set of the pod in bytes", type: "gauge" },
  podSwap: { name: "pod_swap_usage_bytes", help: "[ALPHA] Current amount of the pod swap usage in bytes. Reported only on non-windows systems", type: "gauge" },
  scrapeError: { name: "resource_scrape_error", help: "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", type: "gauge" },
} satisfies Record<string, Family>;

type Key = keyof typeof families;

/** The exposition of a Summary, or of the failure to get one. */
export function resourceMetrics(summary: Summary | Error): string {
  const samples = new Map<Key, Sample[]>();
  const add = (key: Key, value: number, time: string | undefined, labels?: Record<string, string>) => {
    const list = samples.get(key) ?? [];
    list.push({ value, ...(labels && { labels }), ...(time !== undefined && { timestampMs: timeMs(time) }) });
    samples.set(key, list);
  };
  add("scrapeError", summary instanceof Error ? 1 : 0, undefined);
  if (!(summary instanceof Error)) {
    const { node } = summary;
    if (node.cpu?.usageCoreNanoSeconds !== undefined) add("nodeCpu", Number(node.cpu.usageCoreNanoSeconds) / NS_PER_S, node.cpu.time);
    if (node.memory?.workingSetBytes !== undefined) add("nodeMemory", Number(node.memory.workingSetBytes), node.memory.time);
    if (node.swap?.swapUsageBytes !== undefined) add("nodeSwap", Number(node.swap.swapUsageBytes), node.swap.time);
    for (const pod of summary.pods) addPod(pod, add);
  }
  return exposition(Object.entries(families).map(([key, f]): MetricFamily => ({ ...f, samples: samples.get(key as Key) ?? [] })));
}

function addPod(pod: PodStats, add: (key: Key, value: number, time: string | undefined, labels?: Record<string, string>) => void): void {
  const podLabels = { pod: pod.podRef.name, namespace: pod.podRef.namespace };
  for (const c of pod.containers) {
    const labels = { container: c.name, ...podLabels };
    const startMs = timeMs(c.startTime);
    if (startMs >= 1000) add("containerStart", startMs / 1000, undefined, labels);
    if (c.cpu?.usageCoreNanoSeconds !== undefined) add("containerCpu", Number(c.cpu.usageCoreNanoSeconds) / NS_PER_S, c.cpu.time, labels);
    if (c.memory?.workingSetBytes !== undefined) add("containerMemory", Number(c.memory.workingSetBytes), c.memory.time, labels);
    if (c.swap) {
      const used = c.swap.swapUsageBytes;
      if (used !== undefined) add("containerSwap", Number(used), c.swap.time, labels);
      // The limit is what is still available plus what is used.
      if (c.swap.swapAvailableBytes !== undefined) add("containerSwapLimit", Number(c.swap.swapAvailableBytes + (used ?? 0n)), c.swap.time, labels);
    }
  }
  if (pod.cpu?.usageCoreNanoSeconds !== undefined) add("podCpu", Number(pod.cpu.usageCoreNanoSeconds) / NS_PER_S, pod.cpu.time, podLabels);
  if (pod.memory?.workingSetBytes !== undefined) add("podMemory", Number(pod.memory.workingSetBytes), pod.memory.time, podLabels);
  if (pod.swap?.swapUsageBytes !== undefined) add("podSwap", Number(pod.swap.swapUsageBytes), pod.swap.time, podLabels);
}
