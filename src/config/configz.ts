/**
 * The running configuration as /configz serves it: {"kubeletconfig": KubeletConfiguration} in the
 * v1beta1 field names and JSON forms (k8s.io/kubelet/config/v1beta1 types.go; the kubelet's
 * convertToVersionedKubeletConfig sets kind and apiVersion): durations as Go's time.Duration
 * string ("1m0s"), sizes as quantities ("10Mi"). Only fields of KubeletConfiguration appear; the
 * values are bunlet's effective ones (flags, file and defaults merged). bunlet's own settings
 * (the embedded containerd's, evictStaticPods, podLogsMaxTotalSize) have no KubeletConfiguration
 * field and are left out.
 */
import type { BunletConfig } from "./types.ts";

/** time.Duration.String() of a whole number of milliseconds: "0s", "300ms", "10s", "1m30s", "4h0m0s". */
export function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = (rest / 1000).toString();
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** A byte count as a binary-suffixed quantity when it is a whole number of Ki, Mi or Gi. */
function quantity(bytes: number): string {
  for (const [suffix, unit] of [
    ["Gi", 1024 ** 3],
    ["Mi", 1024 ** 2],
    ["Ki", 1024],
  ] as const) {
    if (bytes > 0 && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

export function kubeletConfigz(c: BunletConfig): { kubeletconfig: Record<string, unknown> } {
  const d = goDuration;
  const kubeletconfig: Record<string, unknown> = {
    kind: "KubeletConfiguration",
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    enableServer: c.enableServer,
    staticPodPath: c.staticPodPath,
    podLogsDir: c.podLogsDir,
    syncFrequency: d(c.syncFrequencyMs),
    fileCheckFrequency: d(c.fileCheckFrequencyMs),
    httpCheckFrequency: d(c.httpCheckFrequencyMs),
    staticPodURL: c.staticPodURL,
    staticPodURLHeader: c.staticPodURLHeader,
    address: c.kubeletAddress,
    port: c.port,
    readOnlyPort: c.readOnlyPort,
    tlsCertFile: c.tlsCertFile,
    tlsPrivateKeyFile: c.tlsPrivateKeyFile,
    tlsCipherSuites: c.tlsCipherSuites,
    tlsMinVersion: c.tlsMinVersion,
    authentication: {
      x509: { clientCAFile: c.clientCAFile },
      webhook: { enabled: c.authenticationWebhookEnabled, cacheTTL: d(c.authenticationWebhookCacheTTLMs) },
      anonymous: { enabled: c.anonymousAuth },
    },
    authorization: {
      mode: c.authorizationMode,
      webhook: { cacheAuthorizedTTL: d(c.authorizationCacheAuthorizedTTLMs), cacheUnauthorizedTTL: d(c.authorizationCacheUnauthorizedTTLMs) },
    },
    eventRecordQPS: c.eventRecordQPS,
    eventBurst: c.eventBurst,
    enableDebuggingHandlers: true,
    healthzPort: c.healthzPort,
    healthzBindAddress: c.healthzBindAddress,
    clusterDomain: c.clusterDomain,
    clusterDNS: c.clusterDNS,
    nodeStatusUpdateFrequency: d(c.nodeStatusUpdateFrequencyMs),
    nodeStatusReportFrequency: d(c.nodeStatusReportFrequencyMs),
    nodeLeaseDurationSeconds: c.nodeLeaseDurationSeconds,
    imageMinimumGCAge: d(c.imageMinimumGCAgeMs),
    imageMaximumGCAge: d(c.imageMaximumGCAgeMs),
    imageGCHighThresholdPercent: c.imageGCHighThresholdPercent,
    imageGCLowThresholdPercent: c.imageGCLowThresholdPercent,
    cgroupDriver: c.cgroupDriver,
    runtimeRequestTimeout: d(c.runtimeRequestTimeoutMs),
    podCIDR: c.podCIDR,
    maxPods: c.maxPods,
    resolvConf: c.resolvConf,
    maxOpenFiles: c.maxOpenFiles,
    kubeAPIQPS: c.kubeAPIQPS,
    kubeAPIBurst: c.kubeAPIBurst,
    ...(c.evictionHard && { evictionHard: c.evictionHard }),
    evictionSoft: c.evictionSoft,
    evictionSoftGracePeriod: Object.fromEntries(Object.entries(c.evictionSoftGracePeriod).map(([k, ms]) => [k, d(ms)])),
    evictionPressureTransitionPeriod: d(c.evictionPressureTransitionPeriodMs),
    evictionMaxPodGracePeriod: c.evictionMaxPodGracePeriod,
    evictionMinimumReclaim: c.evictionMinimumReclaim,
    mergeDefaultEvictionSettings: c.mergeDefaultEvictionSettings,
    featureGates: c.featureGates,
    containerLogMaxSize: quantity(c.containerLogMaxSize),
    containerLogMaxFiles: c.containerLogMaxFiles,
    containerLogMaxWorkers: c.containerLogMaxWorkers,
    containerLogMonitorInterval: d(c.containerLogMonitorIntervalMs),
    allowedUnsafeSysctls: c.allowedUnsafeSysctls,
    registerWithTaints: c.registerWithTaints,
    registerNode: c.registerNode,
    containerRuntimeEndpoint: c.containerRuntimeEndpoint,
    shutdownGracePeriod: d(c.shutdownGracePeriodMs),
    shutdownGracePeriodCriticalPods: d(c.shutdownGracePeriodCriticalPodsMs),
    logging: { format: c.loggingFormat, verbosity: c.verbosity },
    enableSystemLogHandler: c.enableSystemLogHandler,
    enableSystemLogQuery: c.enableSystemLogQuery,
  };
  return { kubeletconfig };
}
