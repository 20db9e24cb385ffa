// Liveness, readiness and startup probes: the manager with its workers and result caches.
export { createProbeManager, type ProbeManager, type ProbeManagerDeps, type ProbeStatusLookup } from "./manager.ts";
export { INITIAL_RESULT, statusProviderFrom, type PodProbeView, type ProbeMetrics, type StatusProvider, type StatusSources } from "./probe-worker.ts";
export { checkContainer, MAX_PROBE_RETRIES, type CheckRequest, type ContainerChecker, type ProbeType } from "./probe-check.ts";
export { runProbe, type ProbeTarget } from "./probe-run.ts";
export { PROBE_USER_AGENT, ProbeError, type ProbeOutcome, type ProbeOutcomeResult } from "./probe-types.ts";
export { parseContainerId, ResultsManager, type ProbeResult, type ProbeUpdate } from "./results.ts";
