/**
 * The kubelet's Summary API (/stats/summary) from CRI stats and the host, and cadvisor's machine
 * spec (/spec/): the stats provider the servers call, and the JSON writer (uint64 counters as
 * exact numbers).
 */
export { createStatsProvider, type StatsProvider } from "./provider.ts";
export { statsJson } from "./types.ts";
