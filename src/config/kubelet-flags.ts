/**
 * The kubelet's flags that bunlet accepts so a systemd drop-in written for the kubelet starts
 * bunlet, but does not act on: the table follows cmd/kubelet/app/options/options.go (KubeletFlags
 * and AddKubeletConfigFlags, deprecated flags included), pkg/kubelet/config/flags.go
 * (ContainerRuntimeOptions), component-base's logging flags and the global flags the kubelet
 * registers. Each row: flag name, value type (checked as pflag would, so a bad value still exits
 * 2), and the KubeletConfiguration field it sets when it has one. A value that parses is logged
 * once at start, in the one line of settings bunlet does not act on. Flags bunlet does act on
 * live in flags.ts; a flag the kubelet does not have stays an unknown flag (exit 2).
 */
import * as v from "./values.ts";

export type CompatFlagType =
  | "bool"
  | "string"
  | "duration"
  | "int32"
  | "int64"
  | "stringSlice"
  | "mapStringString"
  | "langleMap"
  | "taints"
  | "quantity"
  | "vmodule";

export interface CompatFlag {
  name: string;
  type: CompatFlagType;
  /** The KubeletConfiguration field (dotted path) the kubelet sets from this flag, if any. */
  field?: string;
}

type Row = [name: string, type: CompatFlagType, field?: string];

const rows: Row[] = [
  // KubeletFlags (not in the config file).
  ["bootstrap-kubeconfig", "string"],
  ["cloud-provider", "string"],
  ["seccomp-default", "bool", "seccompDefault"],
  ["minimum-container-ttl-duration", "duration"],
  ["maximum-dead-containers-per-container", "int32"],
  ["maximum-dead-containers", "int32"],
  ["register-schedulable", "bool"],
  ["keep-terminated-pod-volumes", "bool"],
  ["experimental-mounter-path", "string"],
  ["cloud-config", "string"],
  ["experimental-allocatable-ignore-eviction", "bool"],
  // ContainerRuntimeOptions.
  ["image-credential-provider-config", "string"],
  ["image-credential-provider-bin-dir", "string"],
  // AddKubeletConfigFlags.
  ["fail-swap-on", "bool", "failSwapOn"],
  ["image-service-endpoint", "string", "imageServiceEndpoint"],
  ["rotate-server-certificates", "bool", "serverTLSBootstrap"],
  ["rotate-certificates", "bool", "rotateCertificates"],
  ["registry-qps", "int32", "registryPullQPS"],
  ["registry-burst", "int32", "registryBurst"],
  ["enable-debugging-handlers", "bool", "enableDebuggingHandlers"],
  ["contention-profiling", "bool", "enableContentionProfiling"],
  ["oom-score-adj", "int32", "oomScoreAdj"],
  ["volume-plugin-dir", "string", "volumePluginDir"],
  ["streaming-connection-idle-timeout", "duration", "streamingConnectionIdleTimeout"],
  ["volume-stats-agg-period", "duration", "volumeStatsAggPeriod"],
  ["provider-id", "string", "providerID"],
  ["cpu-manager-policy", "string", "cpuManagerPolicy"],
  ["cpu-manager-policy-options", "mapStringString", "cpuManagerPolicyOptions"],
  ["cpu-manager-reconcile-period", "duration", "cpuManagerReconcilePeriod"],
  ["topology-manager-policy", "string", "topologyManagerPolicy"],
  ["topology-manager-scope", "string", "topologyManagerScope"],
  ["topology-manager-policy-options", "mapStringString", "topologyManagerPolicyOptions"],
  ["hairpin-mode", "string", "hairpinMode"],
  ["runonce", "bool", "runOnce"],
  ["cpu-cfs-quota-period", "duration", "cpuCFSQuotaPeriod"],
  ["enable-controller-attach-detach", "bool", "enableControllerAttachDetach"],
  ["make-iptables-util-chains", "bool", "makeIPTablesUtilChains"],
  ["iptables-masquerade-bit", "int32", "iptablesMasqueradeBit"],
  ["iptables-drop-bit", "int32", "iptablesDropBit"],
  ["node-status-max-images", "int32", "nodeStatusMaxImages"],
  ["kernel-memcg-notification", "bool", "kernelMemcgNotification"],
  ["local-storage-capacity-isolation", "bool", "localStorageCapacityIsolation"],
  ["kube-api-content-type", "string", "contentType"],
  ["serialize-image-pulls", "bool", "serializeImagePulls"],
  ["pods-per-core", "int32", "podsPerCore"],
  ["protect-kernel-defaults", "bool", "protectKernelDefaults"],
  ["reserved-cpus", "string", "reservedSystemCPUs"],
  ["memory-manager-policy", "string", "memoryManagerPolicy"],
  ["reserved-memory", "string", "reservedMemory"],
  // component-base logging flags besides --v and --logging-format.
  ["log-flush-frequency", "duration", "logging.flushFrequency"],
  ["vmodule", "vmodule", "logging.vmodule"],
  ["log-json-split-stream", "bool", "logging.options.json.splitStream"],
  ["log-json-info-buffer-size", "quantity", "logging.options.json.infoBufferSize"],
  ["log-text-split-stream", "bool", "logging.options.text.splitStream"],
  ["log-text-info-buffer-size", "quantity", "logging.options.text.infoBufferSize"],
  // Global flags the kubelet registers from cadvisor.
  ["housekeeping-interval", "duration"],
];

export const kubeletCompatFlags: readonly CompatFlag[] = rows.map(([name, type, field]) => ({ name, type, field }));

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** Checks a value as the kubelet's flag type would parse it; throws ValueError when it would not. */
export function checkCompatValue(type: CompatFlagType, raw: string): void {
  switch (type) {
    case "bool":
      v.boolFromString(raw);
      return;
    case "int32": {
      const n = v.intFromString(raw);
      if (n < INT32_MIN || n > INT32_MAX) throw new v.ValueError(`value out of range for int32, found ${raw}`);
      return;
    }
    case "int64":
      v.intFromString(raw);
      return;
    case "duration":
      // Some kubelet durations may be negative ("set to a negative number to disable").
      v.durationMs(raw.startsWith("-") ? raw.slice(1) : raw);
      return;
    case "mapStringString":
      return void v.separatedMap(raw, "=");
    case "langleMap":
      return void v.separatedMap(raw, "<");
    case "vmodule":
      for (const item of raw.split(",")) {
        if (item === "") continue;
        const [pattern, level, extra] = item.split("=");
        if (!pattern || extra !== undefined || !/^\d+$/.test(level ?? "")) {
          throw new v.ValueError(`expected pattern=N, found ${JSON.stringify(item)}`);
        }
      }
      return;
    case "quantity":
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[mkMGTPE])?$/.test(raw)) {
        throw new v.ValueError(`expected a quantity such as 10Mi, found ${JSON.stringify(raw)}`);
      }
      return;
    case "taints":
      for (const item of raw.split(",")) {
        if (item === "") continue;
        const colon = item.lastIndexOf(":");
        const effect = colon < 0 ? "" : item.slice(colon + 1);
        if (colon <= 0 || !taintEffects.includes(effect)) {
          throw new v.ValueError(`invalid taint spec ${JSON.stringify(item)}, expected key=value:effect with effect ${taintEffects.join(", ")}`);
        }
      }
      return;
    case "string":
    case "stringSlice":
      return;
  }
}
