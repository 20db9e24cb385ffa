// Liveness, readiness and startup probes: the manager with its workers and result caches.
export { createProbeManager, type ProbeManager } from "./manager.ts";
export { statusProviderFrom, type StatusSources } from "./probe-worker.ts";
export type { ProbeType } from "./probe-check.ts";
export type { ProbeUpdate } from "./results.ts";
