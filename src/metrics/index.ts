/**
 * bunlet's Prometheus metrics, with the kubelet's names (pkg/kubelet/metrics/metrics.go) where
 * the kubelet has one, and a `bunlet_` prefix for what is ours. One registry per agent, so tests
 * can run several agents in one process without sharing counters. The probe metrics live in a
 * registry of their own, served on /metrics/probes as the kubelet does (not on /metrics). The
 * process metrics and kubernetes_build_info every Kubernetes component has are in process.ts;
 * client-go's rest_client_* families are fed by every API client through rest-client.ts.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { VERSION } from "../config/index.ts";
import { registerBuildInfo, registerProcessMetrics, registerProcessStartTime } from "./process.ts";

/** prometheus.DefBuckets, which component-base's histograms take when they name none. */
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const startBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 300];

export function createMetrics(registry = new Registry(), probeRegistry = new Registry()) {
  const r = [registry];
  const probes = [probeRegistry];
  registerProcessMetrics(registry);
  registerBuildInfo(registry, VERSION);
  registerProcessStartTime(probeRegistry);
  return {
    registry,
    probeRegistry,
    // Label values as the kubelet's prober: probe_type Liveness/Readiness/Startup, result
    // successful/failed/unknown.
    proberProbeTotal: new Counter({
      name: "prober_probe_total",
      help: "Cumulative number of a liveness, readiness or startup probe for a container by result.",
      labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
      registers: probes,
    }),
    // The default buckets (0.005 s to 10 s) are the kubelet's too.
    proberProbeDuration: new Histogram({
      name: "prober_probe_duration_seconds",
      help: "Duration in seconds for a probe response.",
      labelNames: ["probe_type", "container", "pod", "namespace"],
      registers: probes,
    }),
    evictions: new Counter({
      name: "kubelet_evictions",
      help: "Cumulative number of pod evictions by eviction signal",
      labelNames: ["eviction_signal"],
      registers: r,
    }),
    runtimeOperations: new Counter({
      name: "kubelet_runtime_operations_total",
      help: "Cumulative number of runtime operations by operation type.",
      labelNames: ["operation_type"],
      registers: r,
    }),
    runtimeOperationsErrors: new Counter({
      name: "kubelet_runtime_operations_errors_total",
      help: "Cumulative number of runtime operation errors by operation type.",
      labelNames: ["operation_type"],
      registers: r,
    }),
    runtimeOperationsDuration: new Histogram({
      name: "kubelet_runtime_operations_duration_seconds",
      help: "Duration in seconds of runtime operations, by operation type.",
      labelNames: ["operation_type"],
      buckets: durationBuckets,
      registers: r,
    }),
    runningPods: new Gauge({
      name: "kubelet_running_pods",
      help: "Number of pods that have a running pod sandbox.",
      registers: r,
    }),
    runningContainers: new Gauge({
      name: "kubelet_running_containers",
      help: "Number of containers currently running, by container state.",
      labelNames: ["container_state"],
      registers: r,
    }),
    podWorkerDuration: new Histogram({
      name: "kubelet_pod_worker_duration_seconds",
      help: "Duration in seconds to sync a single pod, by operation type.",
      labelNames: ["operation_type"],
      buckets: durationBuckets,
      registers: r,
    }),
    podStartDuration: new Histogram({
      name: "kubelet_pod_start_duration_seconds",
      help: "Duration in seconds from bunlet first seeing a pod to the pod running.",
      buckets: startBuckets,
      registers: r,
    }),
    startedPods: new Counter({ name: "kubelet_started_pods_total", help: "Pods started.", registers: r }),
    startedPodsErrors: new Counter({
      name: "kubelet_started_pods_errors_total",
      help: "Errors when starting pods.",
      registers: r,
    }),
    startedContainers: new Counter({
      name: "kubelet_started_containers_total",
      help: "Containers started, by container type.",
      labelNames: ["container_type"],
      registers: r,
    }),
    startedContainersErrors: new Counter({
      name: "kubelet_started_containers_errors_total",
      help: "Errors when starting containers, by container type and code.",
      labelNames: ["container_type", "code"],
      registers: r,
    }),
    orphanedRuntimePods: new Counter({
      name: "kubelet_orphaned_runtime_pods_total",
      help: "Runtime pods found that no config source knows, which bunlet killed.",
      registers: r,
    }),
    plegRelistDuration: new Histogram({
      name: "kubelet_pleg_relist_duration_seconds",
      help: "Duration in seconds for relisting pods in PLEG.",
      buckets: durationBuckets,
      registers: r,
    }),
    plegPodRelistDuration: new Histogram({
      name: "kubelet_pleg_pod_relist_duration_seconds",
      help: "Duration in seconds for relisting a single pod in PLEG.",
      buckets: defaultBuckets,
      registers: r,
    }),
    plegRelistInterval: new Histogram({
      name: "kubelet_pleg_relist_interval_seconds",
      help: "Interval in seconds between relisting in PLEG.",
      buckets: [0.5, 0.9, 1, 1.1, 1.5, 2, 5, 10, 30, 60, 300, 600],
      registers: r,
    }),
    plegDiscardEvents: new Counter({
      name: "kubelet_pleg_discard_events",
      help: "The number of discard events in PLEG (event channel full).",
      registers: r,
    }),
    plegLastSeen: new Gauge({
      name: "kubelet_pleg_last_seen_seconds",
      help: "Timestamp in seconds when PLEG was last seen active.",
      registers: r,
    }),
    eventedPlegConnectionErrors: new Counter({
      name: "kubelet_evented_pleg_connection_error_count",
      help: "The number of errors encountered during the establishment of streaming connection with the CRI runtime.",
      registers: r,
    }),
    eventedPlegConnectionSuccess: new Counter({
      name: "kubelet_evented_pleg_connection_success_count",
      help: "The number of times a streaming client was obtained to receive CRI events.",
      registers: r,
    }),
    eventedPlegConnectionLatency: new Histogram({
      name: "kubelet_evented_pleg_connection_latency_seconds",
      help: "The latency of streaming connection with the CRI runtime, from event creation to processing.",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
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
