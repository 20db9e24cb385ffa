/**
 * /metrics/cadvisor's text from what bunlet gathered (cadvisor-source.ts), in cAdvisor's families,
 * help texts and labels (github.com/google/cadvisor metrics/prometheus.go and
 * prometheus_machine.go, as the kubelet registers them: no stability annotation, the labels of
 * the kubelet's containerPrometheusLabelsFunc: container, id, image, name, namespace, pod). Each
 * series carries its sample's timestamp, as cAdvisor's do; creation and start times carry none.
 * The CPU counter has cAdvisor's "cpu" label ("total": the kubelet does not ask for per-CPU usage),
 * filesystems a "device", networks an "interface".
 */
import { exposition, type MetricFamily, type Sample } from "./exposition.ts";
import type { InterfaceStats } from "./cgroup.ts";
import type { CgroupExtras } from "./cgroup-extras.ts";

export interface CadvisorLabels {
  container: string;
  id: string;
  image: string;
  name: string;
  namespace: string;
  pod: string;
}

export interface CadvisorContainer {
  labels: CadvisorLabels;
  creationMs: number;
  startMs: number;
  cpu?: { timeMs: number; usageCoreNanoSeconds: bigint };
  memory?: { timeMs: number; usageBytes?: bigint; workingSetBytes?: bigint; rssBytes?: bigint };
  fs?: { timeMs: number; device: string; usedBytes: bigint }[];
  network?: { timeMs: number; interfaces: InterfaceStats[] };
  /** What its cgroup says beyond usage (cgroup-extras.ts), read at timeMs. */
  extras?: CgroupExtras & { timeMs: number };
}

export interface CadvisorMachine {
  timeMs: number;
  numCores: number;
  memoryBytes?: bigint;
  machineId: string;
  systemUuid: string;
  bootId: string;
}

export interface CadvisorInput {
  nowMs: number;
  containers: CadvisorContainer[];
  machine?: CadvisorMachine;
  /** Something could not be read: container_scrape_error 1, with whatever was read. */
  error: boolean;
}

type Help = [name: string, help: string, type: "counter" | "gauge"];

const help = {
  cpu: ["container_cpu_usage_seconds_total", "Cumulative cpu time consumed in seconds.", "counter"],
  cpuUser: ["container_cpu_user_seconds_total", "Cumulative user cpu time consumed in seconds.", "counter"],
  cpuSystem: ["container_cpu_system_seconds_total", "Cumulative system cpu time consumed in seconds.", "counter"],
  cfsPeriods: ["container_cpu_cfs_periods_total", "Number of elapsed enforcement period intervals.", "counter"],
  cfsThrottledPeriods: ["container_cpu_cfs_throttled_periods_total", "Number of throttled period intervals.", "counter"],
  cfsThrottledSeconds: ["container_cpu_cfs_throttled_seconds_total", "Total time duration the container has been throttled.", "counter"],
  cache: ["container_memory_cache", "Number of bytes of page cache memory.", "gauge"],
  mappedFile: ["container_memory_mapped_file", "Size of memory mapped files in bytes.", "gauge"],
  swap: ["container_memory_swap", "Container swap usage in bytes.", "gauge"],
  failcnt: ["container_memory_failcnt", "Number of memory usage hits limits", "counter"],
  maxUsage: ["container_memory_max_usage_bytes", "Maximum memory usage recorded in bytes", "gauge"],
  specShares: ["container_spec_cpu_shares", "CPU share of the container.", "gauge"],
  specPeriod: ["container_spec_cpu_period", "CPU period of the container.", "gauge"],
  specQuota: ["container_spec_cpu_quota", "CPU quota of the container.", "gauge"],
  specMemoryLimit: ["container_spec_memory_limit_bytes", "Memory limit for the container.", "gauge"],
  workingSet: ["container_memory_working_set_bytes", "Current working set in bytes.", "gauge"],
  usage: ["container_memory_usage_bytes", "Current memory usage in bytes, including all memory regardless of when it was accessed", "gauge"],
  rss: ["container_memory_rss", "Size of RSS in bytes.", "gauge"],
  fsUsage: ["container_fs_usage_bytes", "Number of bytes that are consumed by the container on this filesystem.", "gauge"],
  lastSeen: ["container_last_seen", "Last time a container was seen by the exporter", "gauge"],
  creation: ["container_creation_time_seconds", "Container creation time since unix epoch in seconds.", "gauge"],
  start: ["container_start_time_seconds", "Start time of the container since unix epoch in seconds.", "gauge"],
  rxBytes: ["container_network_receive_bytes_total", "Cumulative count of bytes received", "counter"],
  rxPackets: ["container_network_receive_packets_total", "Cumulative count of packets received", "counter"],
  rxDropped: ["container_network_receive_packets_dropped_total", "Cumulative count of packets dropped while receiving", "counter"],
  rxErrors: ["container_network_receive_errors_total", "Cumulative count of errors encountered while receiving", "counter"],
  txBytes: ["container_network_transmit_bytes_total", "Cumulative count of bytes transmitted", "counter"],
  txPackets: ["container_network_transmit_packets_total", "Cumulative count of packets transmitted", "counter"],
  txDropped: ["container_network_transmit_packets_dropped_total", "Cumulative count of packets dropped while transmitting", "counter"],
  txErrors: ["container_network_transmit_errors_total", "Cumulative count of errors encountered while transmitting", "counter"],
  scrapeError: ["container_scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge"],
  cores: ["machine_cpu_cores", "Number of logical CPU cores.", "gauge"],
  memory: ["machine_memory_bytes", "Amount of memory installed on the machine.", "gauge"],
} satisfies Record<string, Help>;

type Key = keyof typeof help;

const networkFields: [Key, keyof InterfaceStats][] = [
  ["rxBytes", "rxBytes"],
  ["rxPackets", "rxPackets"],
  ["rxDropped", "rxDropped"],
  ["rxErrors", "rxErrors"],
  ["txBytes", "txBytes"],
  ["txPackets", "txPackets"],
  ["txDropped", "txDropped"],
  ["txErrors", "txErrors"],
];

export function cadvisorMetrics(input: CadvisorInput): string {
  const samples = new Map<Key, Sample[]>();
  const add = (key: Key, value: number | bigint, labels: Record<string, string>, timestampMs?: number) => {
    const list = samples.get(key) ?? [];
    list.push({ labels, value: Number(value), ...(timestampMs !== undefined && { timestampMs }) });
    samples.set(key, list);
  };
  const seconds = (ms: number) => Math.floor(ms / 1000);
  for (const c of input.containers) {
    const l = { ...c.labels };
    add("lastSeen", seconds(input.nowMs), l, input.nowMs);
    add("creation", seconds(c.creationMs), l);
    add("start", seconds(c.startMs || c.creationMs), l);
    if (c.cpu) add("cpu", Number(c.cpu.usageCoreNanoSeconds) / 1e9, { ...l, cpu: "total" }, c.cpu.timeMs);
    const m = c.memory;
    if (m) {
      if (m.workingSetBytes !== undefined) add("workingSet", m.workingSetBytes, l, m.timeMs);
      if (m.usageBytes !== undefined) add("usage", m.usageBytes, l, m.timeMs);
      if (m.rssBytes !== undefined) add("rss", m.rssBytes, l, m.timeMs);
    }
    for (const fs of c.fs ?? []) add("fsUsage", fs.usedBytes, { ...l, device: fs.device }, fs.timeMs);
    const x = c.extras;
    if (x) {
      const ns = (v: bigint) => Number(v) / 1e9;
      add("cpuUser", ns(x.cpu.userNs), l, x.timeMs);
      add("cpuSystem", ns(x.cpu.systemNs), l, x.timeMs);
      if (x.cfs) {
        add("cfsPeriods", x.cfs.periods, l, x.timeMs);
        add("cfsThrottledPeriods", x.cfs.throttledPeriods, l, x.timeMs);
        add("cfsThrottledSeconds", ns(x.cfs.throttledNs), l, x.timeMs);
      }
      add("cache", x.memory.cache, l, x.timeMs);
      add("mappedFile", x.memory.mappedFile, l, x.timeMs);
      if (x.memory.swap !== undefined) add("swap", x.memory.swap, l, x.timeMs);
      if (x.memory.failcnt !== undefined) add("failcnt", x.memory.failcnt, l, x.timeMs);
      if (x.memory.maxUsage !== undefined) add("maxUsage", x.memory.maxUsage, l, x.timeMs);
      // The spec carries no timestamp, as cAdvisor's.
      add("specShares", x.spec.cpuShares, l);
      if (x.spec.cpuPeriod !== undefined) add("specPeriod", x.spec.cpuPeriod, l);
      if (x.spec.cpuQuota !== undefined) add("specQuota", x.spec.cpuQuota, l);
      add("specMemoryLimit", x.spec.memoryLimit, l);
    }
    for (const iface of c.network?.interfaces ?? []) {
      const withInterface = { ...l, interface: iface.name };
      for (const [key, field] of networkFields) add(key, iface[field] as bigint, withInterface, c.network!.timeMs);
    }
  }
  add("scrapeError", input.error ? 1 : 0, {});
  const machine = input.machine;
  if (machine) {
    const l = { boot_id: machine.bootId, machine_id: machine.machineId, system_uuid: machine.systemUuid };
    add("cores", machine.numCores, l, machine.timeMs);
    if (machine.memoryBytes !== undefined) add("memory", machine.memoryBytes, l, machine.timeMs);
  }
  return exposition(Object.entries(help).map(([key, [name, text, type]]): MetricFamily => ({ name, help: text, type, samples: samples.get(key as Key) ?? [] })));
}
