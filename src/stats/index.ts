/**
 * The kubelet's Summary API (/stats/summary) from CRI stats and the host: the stats provider the
 * servers call, and the Summary's JSON writer (uint64 counters as exact numbers).
 */
export { createStatsProvider, type StatsProvider } from "./provider.ts";
export { summaryJson } from "./types.ts";
