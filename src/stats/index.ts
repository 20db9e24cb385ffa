/**
 * The kubelet's Summary API (/stats/summary) from CRI stats and the host, and cadvisor's machine
 * spec (/spec/): the stats provider the servers call, the JSON writer (uint64 counters as
 * exact numbers), and the Prometheus expositions made from the same stats (/metrics/resource;
 * /metrics/cadvisor through the provider).
 */
export { createStatsProvider, type StatsProvider } from "./provider.ts";
export type { CgroupSource } from "./pod-cgroups.ts";
export { statsJson } from "./types.ts";
export { resourceMetrics } from "./resource-metrics.ts";
export { PROMETHEUS_TEXT } from "./exposition.ts";
