/**
 * The kubelet's own families (pkg/kubelet/metrics/metrics.go, subsystem `kubelet`) that bunlet
 * fills, with the kubelet's names, help texts (component-base prefixes the stability level:
 * `[ALPHA] …`), label names and buckets. Which code feeds each is said beside it; the families
 * bunlet does not serve, and why, are listed in docs/observability.md.
 */
import { Counter, Gauge, Histogram, type Registry } from "./prom.ts";

/** prometheus.DefBuckets, which component-base's histograms take when they name none. */
export const defBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** podStartupDurationBuckets. */
const podStartupBuckets = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

/** metrics.ExponentialBuckets(start, factor, count). */
function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export const alpha = (help: string) => `[ALPHA] ${help}`;

export function kubeletMetrics(r: Registry[]) {
  return {
    nodeName: new Gauge({ name: "kubelet_node_name", help: alpha("The node's name. The count is always 1."), labelNames: ["node"], registers: r }),
    // Observed by the pod worker when it first syncs a pod (pod_workers.go).
    containersPerPodCount: new Histogram({
      name: "kubelet_containers_per_pod_count",
      help: alpha("The number of containers per pod."),
      buckets: exponentialBuckets(1, 2, 5),
      registers: r,
    }),
    evictions: new Counter({ name: "kubelet_evictions", help: alpha("Cumulative number of pod evictions by eviction signal"), labelNames: ["eviction_signal"], registers: r }),
    runtimeOperations: new Counter({
      name: "kubelet_runtime_operations_total",
      help: alpha("Cumulative number of runtime operations by operation type."),
      labelNames: ["operation_type"],
      registers: r,
    }),
    runtimeOperationsErrors: new Counter({
      name: "kubelet_runtime_operations_errors_total",
      help: alpha("Cumulative number of runtime operation errors by operation type."),
      labelNames: ["operation_type"],
      registers: r,
    }),
    runtimeOperationsDuration: new Histogram({
      name: "kubelet_runtime_operations_duration_seconds",
      help: alpha("Duration in seconds of runtime operations. Broken down by operation type."),
      labelNames: ["operation_type"],
      buckets: exponentialBuckets(0.005, 2.5, 14),
      registers: r,
    }),
    // RunPodSandbox as instrumented_services.go times it, by RuntimeClass handler ("" = default).
    runPodSandboxDuration: new Histogram({
      name: "kubelet_run_podsandbox_duration_seconds",
      help: alpha("Duration in seconds of the run_podsandbox operations. Broken down by RuntimeClass.Handler."),
      labelNames: ["runtime_handler"],
      buckets: defBuckets,
      registers: r,
    }),
    runPodSandboxErrors: new Counter({
      name: "kubelet_run_podsandbox_errors_total",
      help: alpha("Cumulative number of the run_podsandbox operation errors by RuntimeClass.Handler."),
      labelNames: ["runtime_handler"],
      registers: r,
    }),
    runningPods: new Gauge({ name: "kubelet_running_pods", help: alpha("Number of pods that have a running pod sandbox"), registers: r }),
    runningContainers: new Gauge({
      name: "kubelet_running_containers",
      help: alpha("Number of containers currently running"),
      labelNames: ["container_state"],
      registers: r,
    }),
    // Housekeeping's view of the pod manager and the pod workers (kubelet_pods.go HandlePodCleanups).
    desiredPods: new Gauge({
      name: "kubelet_desired_pods",
      help: alpha("The number of pods the kubelet is being instructed to run. static is true if the pod is not from the apiserver."),
      labelNames: ["static"],
      registers: r,
    }),
    activePods: new Gauge({
      name: "kubelet_active_pods",
      help: alpha("The number of pods the kubelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver."),
      labelNames: ["static"],
      registers: r,
    }),
    mirrorPods: new Gauge({
      name: "kubelet_mirror_pods",
      help: alpha("The number of mirror pods the kubelet will try to create (one per admitted static pod)"),
      registers: r,
    }),
    workingPods: new Gauge({
      name: "kubelet_working_pods",
      help: alpha(
        "Number of pods the kubelet is actually running, broken down by lifecycle phase, whether the pod is desired, orphaned, or runtime only (also orphaned), and whether the pod is static. An orphaned pod has been removed from local configuration or force deleted in the API and consumes resources that are not otherwise visible.",
      ),
      labelNames: ["lifecycle", "config", "static"],
      registers: r,
    }),
    orphanedRuntimePods: new Counter({
      name: "kubelet_orphaned_runtime_pods_total",
      help: alpha(
        "Number of pods that have been detected in the container runtime without being already known to the pod worker. This typically indicates the kubelet was restarted while a pod was force deleted in the API or in the local configuration, which is unusual.",
      ),
      registers: r,
    }),
    restartedPods: new Counter({
      name: "kubelet_restarted_pods_total",
      help: alpha(
        "Number of pods that have been restarted because they were deleted and recreated with the same UID while the kubelet was watching them (common for static pods, extremely uncommon for API pods)",
      ),
      labelNames: ["static"],
      registers: r,
    }),
    podWorkerDuration: new Histogram({
      name: "kubelet_pod_worker_duration_seconds",
      help: alpha("Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync"),
      labelNames: ["operation_type"],
      buckets: defBuckets,
      registers: r,
    }),
    podWorkerStartDuration: new Histogram({
      name: "kubelet_pod_worker_start_duration_seconds",
      help: alpha("Duration in seconds from kubelet seeing a pod to starting a worker."),
      buckets: defBuckets,
      registers: r,
    }),
    podStartDuration: new Histogram({
      name: "kubelet_pod_start_duration_seconds",
      help: alpha("Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run"),
      buckets: podStartupBuckets,
      registers: r,
    }),
    // The pod startup latency tracker's (pod-startup.ts): API pods only, from creationTimestamp.
    podStartSLIDuration: new Histogram({
      name: "kubelet_pod_start_sli_duration_seconds",
      help: alpha(
        "Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch",
      ),
      buckets: podStartupBuckets,
      registers: r,
    }),
    podStartTotalDuration: new Histogram({
      name: "kubelet_pod_start_total_duration_seconds",
      help: alpha(
        "Duration in seconds to start a pod since creation, including time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch",
      ),
      buckets: podStartupBuckets,
      registers: r,
    }),
    // INTERNAL: component-base prints the level like any other.
    firstNetworkPodStartSLIDuration: new Gauge({
      name: "kubelet_first_network_pod_start_sli_duration_seconds",
      help: "[INTERNAL] Duration in seconds to start the first network pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch",
      registers: r,
    }),
    podStatusSyncDuration: new Histogram({
      name: "kubelet_pod_status_sync_duration_seconds",
      help: alpha(
        "Duration in seconds to sync a pod status update. Measures time from detection of a change to pod status until the API is successfully updated for that pod, even if multiple intevening changes to pod status occur.",
      ),
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 20, 30, 45, 60],
      registers: r,
    }),
    startedPods: new Counter({ name: "kubelet_started_pods_total", help: alpha("Cumulative number of pods started"), registers: r }),
    startedPodsErrors: new Counter({ name: "kubelet_started_pods_errors_total", help: alpha("Cumulative number of errors when starting pods"), registers: r }),
    startedUserNamespacedPods: new Counter({
      name: "kubelet_started_user_namespaced_pods_total",
      help: alpha("Cumulative number of pods with user namespaces started. This metric will only be collected on Linux."),
      registers: r,
    }),
    startedUserNamespacedPodsErrors: new Counter({
      name: "kubelet_started_user_namespaced_pods_errors_total",
      help: alpha("Cumulative number of errors when starting pods with user namespaces. This metric will only be collected on Linux."),
      registers: r,
    }),
    startedContainers: new Counter({
      name: "kubelet_started_containers_total",
      help: alpha("Cumulative number of containers started"),
      labelNames: ["container_type"],
      registers: r,
    }),
    startedContainersErrors: new Counter({
      name: "kubelet_started_containers_errors_total",
      help: alpha("Cumulative number of errors when starting containers"),
      labelNames: ["container_type", "code"],
      registers: r,
    }),
    plegRelistDuration: new Histogram({
      name: "kubelet_pleg_relist_duration_seconds",
      help: alpha("Duration in seconds for relisting pods in PLEG."),
      buckets: defBuckets,
      registers: r,
    }),
    plegPodRelistDuration: new Histogram({
      name: "kubelet_pleg_pod_relist_duration_seconds",
      help: alpha("Duration in seconds for relisting a single pod in PLEG."),
      buckets: defBuckets,
      registers: r,
    }),
    plegRelistInterval: new Histogram({
      name: "kubelet_pleg_relist_interval_seconds",
      help: alpha("Interval in seconds between relisting in PLEG."),
      buckets: defBuckets,
      registers: r,
    }),
    plegDiscardEvents: new Counter({ name: "kubelet_pleg_discard_events", help: alpha("The number of discard events in PLEG."), registers: r }),
    plegLastSeen: new Gauge({ name: "kubelet_pleg_last_seen_seconds", help: alpha("Timestamp in seconds when PLEG was last seen active."), registers: r }),
    eventedPlegConnectionErrors: new Counter({
      name: "kubelet_evented_pleg_connection_error_count",
      help: alpha("The number of errors encountered during the establishment of streaming connection with the CRI runtime."),
      registers: r,
    }),
    eventedPlegConnectionSuccess: new Counter({
      name: "kubelet_evented_pleg_connection_success_count",
      help: alpha("The number of times a streaming client was obtained to receive CRI Events."),
      registers: r,
    }),
    eventedPlegConnectionLatency: new Histogram({
      name: "kubelet_evented_pleg_connection_latency_seconds",
      help: alpha("The latency of streaming connection with the CRI runtime, measured in seconds."),
      buckets: defBuckets,
      registers: r,
    }),
    // node_startup_latency_tracker.go: set once, at the first registration and the first Ready.
    nodeStartupPreKubelet: new Gauge({ name: "kubelet_node_startup_pre_kubelet_duration_seconds", help: alpha("Duration in seconds of node startup before kubelet starts."), registers: r }),
    nodeStartupPreRegistration: new Gauge({ name: "kubelet_node_startup_pre_registration_duration_seconds", help: alpha("Duration in seconds of node startup before registration."), registers: r }),
    nodeStartupRegistration: new Gauge({ name: "kubelet_node_startup_registration_duration_seconds", help: alpha("Duration in seconds of node startup during registration."), registers: r }),
    nodeStartupPostRegistration: new Gauge({ name: "kubelet_node_startup_post_registration_duration_seconds", help: alpha("Duration in seconds of node startup after registration."), registers: r }),
    nodeStartup: new Gauge({ name: "kubelet_node_startup_duration_seconds", help: alpha("Duration in seconds of node startup in total."), registers: r }),
    orphanPodCleanedVolumes: new Gauge({
      name: "kubelet_orphan_pod_cleaned_volumes",
      help: alpha("The total number of orphaned Pods whose volumes were cleaned in the last periodic sweep."),
      registers: r,
    }),
    orphanPodCleanedVolumesErrors: new Gauge({
      name: "kubelet_orphan_pod_cleaned_volumes_errors",
      help: alpha("The number of orphaned Pods whose volumes failed to be cleaned in the last periodic sweep."),
      registers: r,
    }),
    // images/metrics.go: each EnsureImageExists, by policy (lower case) and what it found.
    imageManagerEnsureImageRequests: new Counter({
      name: "kubelet_image_manager_ensure_image_requests_total",
      help: alpha("Number of ensure-image requests processed by the kubelet."),
      labelNames: ["pull_policy", "present_locally", "pull_required"],
      registers: r,
    }),
    // Image volumes (KEP-4639): counted per container start, as incrementImageVolumeMetrics does.
    imageVolumeRequested: new Counter({ name: "kubelet_image_volume_requested_total", help: "[BETA] Number of requested image volumes.", registers: r }),
    imageVolumeMountedSucceed: new Counter({ name: "kubelet_image_volume_mounted_succeed_total", help: "[BETA] Number of successful image volume mounts.", registers: r }),
    imageVolumeMountedErrors: new Counter({ name: "kubelet_image_volume_mounted_errors_total", help: "[BETA] Number of failed image volume mounts.", registers: r }),
    // A sleep hook cut short; the kubelet v1.37.2 defines it but never counts, bunlet does.
    sleepActionTerminatedEarly: new Counter({
      name: "kubelet_sleep_action_terminated_early_total",
      help: alpha("The number of times lifecycle sleep handler got terminated before it finishes"),
      registers: r,
    }),
    // The last graceful node shutdown (src/shutdown/state.ts), in seconds since the epoch.
    gracefulShutdownStartTime: new Gauge({
      name: "kubelet_graceful_shutdown_start_time_seconds",
      help: alpha("Last graceful shutdown start time since unix epoch in seconds"),
      registers: r,
    }),
    gracefulShutdownEndTime: new Gauge({
      name: "kubelet_graceful_shutdown_end_time_seconds",
      help: alpha("Last graceful shutdown end time since unix epoch in seconds"),
      registers: r,
    }),
    cgroupVersion: new Gauge({ name: "kubelet_cgroup_version", help: alpha("cgroup version on the hosts."), registers: r }),
    managedEphemeralContainers: new Gauge({
      name: "kubelet_managed_ephemeral_containers",
      help: alpha("Current number of ephemeral containers in pods managed by this kubelet."),
      registers: r,
    }),
  };
}
