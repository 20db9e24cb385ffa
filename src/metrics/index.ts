/**
 * bunlet's Prometheus metrics, with the kubelet's names (pkg/kubelet/metrics/metrics.go) where
 * the kubelet has one, and a `bunlet_` prefix for what is ours. One registry per agent, so tests
 * can run several agents in one process without sharing counters. The probe metrics live in a
 * registry of their own, served on /metrics/probes as the kubelet does (not on /metrics). The
 * process metrics and kubernetes_build_info every Kubernetes component has are in process.ts;
 * client-go's rest_client_* families are fed by every API client through rest-client.ts.
 */
import { Counter, Gauge, Histogram, Registry } from "./prom.ts";
import { kubeletMetrics } from "./kubelet.ts";
import { serverMetrics } from "./server.ts";
import { volumeMetrics } from "./volume.ts";
import { VERSION } from "../config/index.ts";
import { registerComponentBaseMetrics } from "./component-base.ts";
import { registerBuildInfo, registerProcessMetrics, registerProcessStartTime } from "./process.ts";

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(registry = new Registry(), probeRegistry = new Registry()) {
  const r = [registry];
  const probes = [probeRegistry];
  registerProcessMetrics(registry);
  registerBuildInfo(registry, VERSION);
  registerComponentBaseMetrics(registry);
  registerProcessStartTime(probeRegistry);
  return {
    registry,
    probeRegistry,
    // Label values as the kubelet's prober: probe_type Liveness/Readiness/Startup, result
    // successful/failed/unknown.
    proberProbeTotal: new Counter({
      name: "prober_probe_total",
      help: "[BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.",
      labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
      registers: probes,
    }),
    // The default buckets (0.005 s to 10 s) are the kubelet's too.
    proberProbeDuration: new Histogram({
      name: "prober_probe_duration_seconds",
      help: "[ALPHA] Duration in seconds for a probe response.",
      labelNames: ["probe_type", "container", "pod", "namespace"],
      registers: probes,
    }),
    ...kubeletMetrics(r),
    ...serverMetrics(r),
    ...volumeMetrics(r),
    plegMode: new Gauge({
      name: "bunlet_pleg_mode",
      help: "1 for the PLEG mode in use (evented or generic), 0 for the other.",
      labelNames: ["mode"],
      registers: r,
    }),
    manifestErrors: new Counter({
      name: "bunlet_manifest_errors",
      help: "Bad manifest versions seen (not decoding, invalid, or duplicating another file's pod), by source.",
      labelNames: ["source"],
      registers: r,
    }),
    rejectedManifests: new Gauge({
      name: "bunlet_rejected_manifests",
      help: "Manifests rejected right now (not decoding, invalid, or duplicating another file's pod), by source.",
      labelNames: ["source"],
      registers: r,
    }),
    // client-go's (component-base/metrics/prometheus/restclient), fed by every API client of the agent.
    restClientRequests: new Counter({
      name: "rest_client_requests_total",
      help: "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
      registers: r,
    }),
    restClientRequestDuration: new Histogram({
      name: "rest_client_request_duration_seconds",
      help: "[ALPHA] Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers: r,
    }),
    podStartStepDuration: new Histogram({
      name: "bunlet_pod_start_step_duration_seconds",
      help: "Time spent in each step of a pod start (pull, sandbox, create, start), by step.",
      labelNames: ["step"],
      buckets: durationBuckets,
      registers: r,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
export { restClientObserver } from "./rest-client.ts";
export { registerCertificateTtl } from "./certificates.ts";
export { registerLogMetrics } from "./log-metrics.ts";
export { registerPodCertificateStates, registerVolumeCounts } from "./volume.ts";
export { setNodeMetrics } from "./node.ts";
