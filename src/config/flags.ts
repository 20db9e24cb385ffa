/**
 * The command line, spelled like the kubelet's and parsed like Go's pflag: `--flag=value` and
 * `--flag value`, bools as `--flag` or `--flag=false`, `-v 4` / `-v=4` / `-v4`, `_` read as `-`
 * (the kubelet's word-separator normalisation). The first problem, left to right, is the error.
 */
import { formatGoDuration } from "../lib/index.ts";
import { cgroupsFlagDefs } from "./cgroups.ts";
import { upkeepFlagDefs } from "./upkeep.ts";
import { checkCompatValue, kubeletCompatFlags } from "./kubelet-flags.ts";
import { parseGateList } from "./featuregates.ts";
import { tlsCipherSuites, tlsMinVersion } from "./tls.ts";
import { ConfigError, defaults, DEFAULT_READ_ONLY_PORT, type ConfigLayer } from "./types.ts";
import * as v from "./values.ts";

export interface FlagState {
  layer: ConfigLayer;
  configPath?: string;
  /** --config-dir: drop-in KubeletConfiguration files (*.conf), applied over --config in name order. */
  configDir?: string;
  /** Kubelet flags given that bunlet accepts and does not act on, with their config field. */
  ignored: { flag: string; field?: string }[];
  version: boolean;
  help: boolean;
}

export interface FlagDef {
  name: string;
  short?: string;
  /** Takes no value unless given as --flag=value. */
  bool?: boolean;
  /** The value's type as pflag prints it in help ("string", "duration", ...); "" for bools. */
  type: string;
  group: string;
  usage: string;
  defaultText?: string;
  /** The KubeletConfiguration field this flag overrides, if any. */
  field?: string;
  /** Accepted for kubelet compatibility and not acted on: --help lists these by name only. */
  compat?: boolean;
  set(state: FlagState, raw: string): void;
}

const dur = (ms: number) => formatGoDuration(ms);

export const flagDefs: readonly FlagDef[] = [
  { name: "config", type: "string", group: "Configuration", usage: "Path to a KubeletConfiguration file (YAML or JSON, kubelet.config.k8s.io/v1beta1). Flags override its fields.",
    set: (s, raw) => void (s.configPath = raw) },
  { name: "config-dir", type: "string", group: "Configuration",
    usage: "Directory of drop-in KubeletConfiguration files (*.conf), applied over --config in file name order, as the kubelet's.",
    set: (s, raw) => void (s.configDir = raw) },
  { name: "pod-manifest-path", type: "string", group: "Pod sources", field: "staticPodPath", usage: "Directory of static pod manifests to run, or a single manifest file. Files starting with \".\" are ignored.",
    set: (s, raw) => void (s.layer.staticPodPath = raw) },
  { name: "manifest-url", type: "string", group: "Pod sources", field: "staticPodURL", usage: "URL to fetch static pods from (a Pod, a PodList or a YAML stream of pods).",
    set: (s, raw) => void (s.layer.staticPodURL = raw) },
  { name: "manifest-url-header", type: "Name:Value", group: "Pod sources", field: "staticPodURLHeader",
    usage: "HTTP headers for --manifest-url requests, as 'Name:Value'. Repeatable; 'a:b,c:d' sets several.",
    set: (s, raw) => void (s.layer.staticPodURLHeader = v.headerPairs(raw, s.layer.staticPodURLHeader ?? {})) },
  { name: "file-check-frequency", type: "duration", group: "Pod sources", field: "fileCheckFrequency", defaultText: dur(defaults.fileCheckFrequencyMs),
    usage: "How often to re-read the static pod path (changes are also watched).",
    set: (s, raw) => void (s.layer.fileCheckFrequencyMs = v.positiveDuration(raw)) },
  { name: "http-check-frequency", type: "duration", group: "Pod sources", field: "httpCheckFrequency", defaultText: dur(defaults.httpCheckFrequencyMs),
    usage: "How often to fetch the manifest URL.",
    set: (s, raw) => void (s.layer.httpCheckFrequencyMs = v.positiveDuration(raw)) },
  { name: "kubeconfig", type: "string", group: "Pod sources", usage: "kubeconfig for the API server: register the Node, report its status, renew its Lease. Empty runs standalone (static pods only).",
    set: (s, raw) => void (s.layer.kubeconfig = raw) },
  { name: "sync-frequency", type: "duration", group: "Pods and runtime", field: "syncFrequency", defaultText: dur(defaults.syncFrequencyMs),
    usage: "Longest time between two syncs of a running pod.",
    set: (s, raw) => void (s.layer.syncFrequencyMs = v.positiveDuration(raw)) },
  { name: "allowed-unsafe-sysctls", type: "strings", group: "Pods and runtime", field: "allowedUnsafeSysctls",
    usage: "Unsafe sysctls or sysctl patterns (ending in *), comma-separated, that pods may set beside the safe ones; a pod setting any other is rejected (SysctlForbidden).",
    set: (s, raw) => void (s.layer.allowedUnsafeSysctls = raw === "" ? [] : raw.split(",")) },
  { name: "container-runtime-endpoint", type: "string", group: "Pods and runtime", field: "containerRuntimeEndpoint",
    usage: "CRI socket (unix:///path). Empty: bunlet runs its own containerd under <root-dir>/containerd.",
    set: (s, raw) => void (s.layer.containerRuntimeEndpoint = v.runtimeEndpoint(raw)) },
  { name: "runtime-request-timeout", type: "duration", group: "Pods and runtime", field: "runtimeRequestTimeout", defaultText: dur(defaults.runtimeRequestTimeoutMs),
    usage: "Timeout of CRI requests other than long-running ones (pull, logs, exec, attach).",
    set: (s, raw) => void (s.layer.runtimeRequestTimeoutMs = v.positiveDuration(raw)) },
  { name: "root-dir", type: "string", group: "Pods and runtime", defaultText: defaults.rootDir, usage: "Directory for bunlet's state.",
    set: (s, raw) => void (s.layer.rootDir = v.absoluteDir(raw)) },
  { name: "lock-file", type: "string", group: "Pods and runtime",
    usage: "A further file to lock, as the kubelet's. bunlet always locks <root-dir>/bunlet.lock: one bunlet per root directory.",
    set: (s, raw) => void (s.layer.lockFile = raw) },
  { name: "exit-on-lock-contention", bool: true, type: "", group: "Pods and runtime",
    usage: "Wait for the bunlet holding the root directory to leave instead of exiting, and leave (pods keep running) when another bunlet asks.",
    set: (s, raw) => void (s.layer.exitOnLockContention = v.boolFromString(raw)) },
  { name: "pod-logs-dir", type: "string", group: "Pods and runtime", field: "podLogsDir", defaultText: defaults.podLogsDir, usage: "Directory for container log files.",
    set: (s, raw) => void (s.layer.podLogsDir = v.absoluteDir(raw)) },
  { name: "container-logs-dir", type: "string", group: "Pods and runtime", defaultText: defaults.containerLogsDir,
    usage: "Directory for the <pod>_<ns>_<container>-<id>.log symlinks (bunlet flag).",
    set: (s, raw) => void (s.layer.containerLogsDir = v.absoluteDir(raw)) },
  { name: "cgroup-driver", type: "string", group: "Pods and runtime", field: "cgroupDriver", defaultText: defaults.cgroupDriver,
    usage: "cgroupfs or systemd: how the pod cgroups are made (systemd: slices, so systemd must be the init system), and the embedded containerd's SystemdCgroup runc option.",
    set: (s, raw) => void (s.layer.cgroupDriver = v.cgroupDriver(raw)) },
  { name: "resolv-conf", type: "string", group: "Pods and runtime", field: "resolvConf", defaultText: defaults.resolvConf,
    usage: "Resolver configuration that pods with dnsPolicy Default or ClusterFirst inherit; \"\" for none.",
    set: (s, raw) => void (s.layer.resolvConf = raw) },
  { name: "pod-cidr", type: "string", group: "Pods and runtime", field: "podCIDR", defaultText: "the Node's spec.podCIDR when joined, else 10.88.0.0/16",
    usage: "Pod IP range of the embedded containerd's CNI bridge (as the kubelet's standalone-mode podCIDR); given, it wins over the Node's and bunlet keeps no routes between nodes.",
    set: (s, raw) => void (s.layer.podCIDR = v.podCIDR(raw)) },
  { name: "cni-bridge-name", type: "string", group: "Pods and runtime", defaultText: defaults.cniBridgeName,
    usage: "Bridge interface of the embedded containerd's CNI network (bunlet flag); give each bunlet on a host its own.",
    set: (s, raw) => void (s.layer.cniBridgeName = v.interfaceName(raw)) },
  { name: "cni-conf-dir", type: "string", group: "Pods and runtime", defaultText: "bunlet's own bridge",
    usage: "CNI configuration directory the embedded containerd reads (a cluster CNI's, such as /etc/cni/net.d); bunlet then renders no bridge and keeps no routes.",
    set: (s, raw) => void (s.layer.cniConfDir = v.absoluteDir(raw)) },
  { name: "cni-bin-dir", type: "string", group: "Pods and runtime", defaultText: "/usr/lib/cni",
    usage: "Directory of CNI plugin binaries for the embedded containerd (a cluster CNI installs into /opt/cni/bin).",
    set: (s, raw) => void (s.layer.cniBinDir = v.absoluteDir(raw)) },
  { name: "containerd", type: "string", group: "Pods and runtime", defaultText: "containerd on PATH",
    usage: "containerd binary the embedded containerd runs (bunlet flag), 1.6, 1.7 or 2.x; its directory comes first on its PATH, so it runs its own shim.",
    set: (s, raw) => void (s.layer.containerdPath = v.absolutePath(raw)) },
  { name: "pod-infra-container-image", type: "string", group: "Pods and runtime", defaultText: "registry.k8s.io/pause:3.10.2",
    usage: "The embedded containerd's sandbox (pause) image; the bundled pause is tagged under this name when the node has no such image. With --container-runtime-endpoint the runtime's own setting applies.",
    set: (s, raw) => void (s.layer.podInfraContainerImage = v.imageReference(raw)) },
  { name: "hostname-override", type: "string", group: "Node", usage: "Node name (lower-cased), used in static pod names. Default: the OS hostname.",
    set: (s, raw) => void (s.layer.nodeName = raw) },
  { name: "node-name", type: "string", group: "Node", usage: "Same as --hostname-override.",
    set: (s, raw) => void (s.layer.nodeName = raw) },
  { name: "node-ip", type: "string", group: "Node",
    usage: "The node's InternalIP (an IPv4 and an IPv6 one, comma-separated, for dual stack). Default: the address of the default route's interface.",
    set: (s, raw) => void (s.layer.nodeIPs = v.nodeIPs(raw)) },
  { name: "node-labels", type: "mapStringString", group: "Node",
    usage: "Labels added to the Node at registration, 'key=value,...'. kubernetes.io/k8s.io labels only under kubelet.kubernetes.io/ and node.kubernetes.io/.",
    set: (s, raw) => void (s.layer.nodeLabels = v.nodeLabels(raw, s.layer.nodeLabels ?? {})) },
  { name: "register-node", type: "", bool: true, group: "Node", field: "registerNode", defaultText: "true",
    usage: "Register the Node with the API server (with --kubeconfig).",
    set: (s, raw) => void (s.layer.registerNode = v.boolFromString(raw)) },
  { name: "register-with-taints", type: "[]Taint", group: "Node", field: "registerWithTaints",
    usage: "Taints the Node registers with, 'key=value:Effect,key:Effect'.",
    set: (s, raw) => void (s.layer.registerWithTaints = v.taintList(raw)) },
  { name: "max-pods", type: "int32", group: "Node", field: "maxPods", defaultText: String(defaults.maxPods),
    usage: "The Node's pod capacity.",
    set: (s, raw) => void (s.layer.maxPods = v.nonNegativeInt32(v.intFromString(raw))) },
  { name: "node-status-update-frequency", type: "duration", group: "Node", field: "nodeStatusUpdateFrequency", defaultText: dur(defaults.nodeStatusUpdateFrequencyMs),
    usage: "How often the node status is computed; it is sent when it changed or every nodeStatusReportFrequency (5m).",
    set: (s, raw) => void (s.layer.nodeStatusUpdateFrequencyMs = v.positiveDuration(raw)) },
  { name: "kube-api-qps", type: "int32", group: "Node", field: "kubeAPIQPS", defaultText: String(defaults.kubeAPIQPS),
    usage: "API requests per second (client-side limit; registration and later the pod source; status and lease are not limited).",
    set: (s, raw) => void (s.layer.kubeAPIQPS = v.nonNegativeInt32(v.intFromString(raw))) },
  { name: "cluster-dns", type: "strings", group: "Node", field: "clusterDNS",
    usage: "DNS server IPs, comma-separated, that ClusterFirst pods resolve with (with the cluster domain's search paths). Empty: they use the node's resolver.",
    set: (s, raw) => void (s.layer.clusterDNS = v.clusterDNS(raw === "" ? [] : raw.split(","))) },
  { name: "cluster-domain", type: "string", group: "Node", field: "clusterDomain",
    usage: "The cluster's DNS domain: ClusterFirst pods search <ns>.svc.<domain>, svc.<domain>, <domain> before the node's domains.",
    set: (s, raw) => void (s.layer.clusterDomain = raw) },
  { name: "kube-api-burst", type: "int32", group: "Node", field: "kubeAPIBurst", defaultText: String(defaults.kubeAPIBurst),
    usage: "API requests allowed in a burst above --kube-api-qps.",
    set: (s, raw) => void (s.layer.kubeAPIBurst = v.nonNegativeInt32(v.intFromString(raw))) },
  { name: "event-qps", type: "int32", group: "Node", field: "eventRecordQPS", defaultText: String(defaults.eventRecordQPS),
    usage: "Events sent to the apiserver per second (client-side limit); 0 = no limit.",
    set: (s, raw) => void (s.layer.eventRecordQPS = v.nonNegativeInt32(v.intFromString(raw))) },
  { name: "event-burst", type: "int32", group: "Node", field: "eventBurst", defaultText: String(defaults.eventBurst),
    usage: "Events allowed in a burst above --event-qps; 0 = 10.",
    set: (s, raw) => void (s.layer.eventBurst = v.nonNegativeInt32(v.intFromString(raw))) },
  { name: "address", type: "ip", group: "HTTP", field: "address", defaultText: defaults.address,
    usage: "IP address the read-only port listens on (the kubelet uses 0.0.0.0; the port has no authentication).",
    set: (s, raw) => void (s.layer.address = v.ipAddress(raw)) },
  { name: "read-only-port", type: "int32", group: "HTTP", field: "readOnlyPort", defaultText: `${DEFAULT_READ_ONLY_PORT}, or 0 with --config`,
    usage: "Port of the read-only API (/healthz, /pods, /metrics, /stats/summary, /spec/); 0 = off.",
    set: (s, raw) => void (s.layer.readOnlyPort = v.portOrOff(v.intFromString(raw))) },
  { name: "healthz-port", type: "int32", group: "HTTP", field: "healthzPort", defaultText: String(defaults.healthzPort),
    usage: "Port of the /healthz-only endpoint; 0 = off.",
    set: (s, raw) => void (s.layer.healthzPort = v.portOrOff(v.intFromString(raw))) },
  { name: "healthz-bind-address", type: "ip", group: "HTTP", field: "healthzBindAddress", defaultText: defaults.healthzBindAddress,
    usage: "IP address the healthz port listens on.",
    set: (s, raw) => void (s.layer.healthzBindAddress = v.ipAddress(raw)) },
  ...upkeepFlagDefs,
  ...cgroupsFlagDefs,
  { name: "enable-server", type: "", bool: true, group: "Kubelet API", field: "enableServer", defaultText: "true",
    usage: "Serve the kubelet API (logs, exec, attach, port-forward, /pods, /metrics, /stats) on --port.",
    set: (s, raw) => void (s.layer.enableServer = v.boolFromString(raw)) },
  { name: "port", type: "int32", group: "Kubelet API", field: "port", defaultText: String(defaults.port),
    usage: "Port of the kubelet API (HTTPS, authenticated and authorized); it listens on --address, or 0.0.0.0 when --address is not given.",
    set: (s, raw) => void (s.layer.port = v.port(v.intFromString(raw))) },
  { name: "tls-cert-file", type: "string", group: "Kubelet API", field: "tlsCertFile",
    usage: "The kubelet API's serving certificate (PEM, intermediates after it). Without it and --tls-private-key-file, a self-signed pair is made under --cert-dir.",
    set: (s, raw) => void (s.layer.tlsCertFile = raw) },
  { name: "tls-private-key-file", type: "string", group: "Kubelet API", field: "tlsPrivateKeyFile",
    usage: "The private key of --tls-cert-file (PEM).",
    set: (s, raw) => void (s.layer.tlsPrivateKeyFile = raw) },
  { name: "tls-min-version", type: "string", group: "Kubelet API", field: "tlsMinVersion", defaultText: "VersionTLS12",
    usage: "Minimum TLS version of the kubelet API: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13.",
    set: (s, raw) => void (s.layer.tlsMinVersion = tlsMinVersion(raw)) },
  { name: "tls-cipher-suites", type: "strings", group: "Kubelet API", field: "tlsCipherSuites",
    usage: "TLS 1.2 cipher suites of the kubelet API, comma-separated Go names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...). Default: Go's.",
    set: (s, raw) => void (s.layer.tlsCipherSuites = tlsCipherSuites(raw === "" ? [] : raw.split(","))) },
  { name: "max-open-files", type: "int64", group: "Pods and runtime", field: "maxOpenFiles", defaultText: String(defaults.maxOpenFiles),
    usage: "Number of files bunlet may open (RLIMIT_NOFILE, set at start as the kubelet does).",
    set: (s, raw) => void (s.layer.maxOpenFiles = v.maxOpenFiles(v.intFromString(raw)) || defaults.maxOpenFiles) },
  { name: "cert-dir", type: "string", group: "Kubelet API", defaultText: "<root-dir>/pki",
    usage: "Where the self-signed serving certificate (kubelet.crt, kubelet.key) is kept.",
    set: (s, raw) => void (s.layer.certDir = raw) },
  { name: "client-ca-file", type: "string", group: "Kubelet API", field: "authentication.x509.clientCAFile",
    usage: "Authenticate clients whose certificate this CA bundle signed, as the CommonName (user) and Organizations (groups).",
    set: (s, raw) => void (s.layer.clientCAFile = raw) },
  { name: "authentication-token-webhook", type: "", bool: true, group: "Kubelet API", field: "authentication.webhook.enabled", defaultText: "true",
    usage: "Authenticate bearer tokens with the API server's TokenReview (needs --kubeconfig).",
    set: (s, raw) => void (s.layer.authenticationWebhookEnabled = v.boolFromString(raw)) },
  { name: "authentication-token-webhook-cache-ttl", type: "duration", group: "Kubelet API", field: "authentication.webhook.cacheTTL",
    defaultText: dur(defaults.authenticationWebhookCacheTTLMs), usage: "How long TokenReview answers are cached.",
    set: (s, raw) => void (s.layer.authenticationWebhookCacheTTLMs = v.positiveDuration(raw)) },
  { name: "anonymous-auth", type: "", bool: true, group: "Kubelet API", field: "authentication.anonymous.enabled", defaultText: "false",
    usage: "Treat requests no other method authenticates as system:anonymous (group system:unauthenticated), still subject to authorization.",
    set: (s, raw) => void (s.layer.anonymousAuth = v.boolFromString(raw)) },
  { name: "authorization-mode", type: "string", group: "Kubelet API", field: "authorization.mode", defaultText: defaults.authorizationMode,
    usage: "Webhook: ask the API server (SubjectAccessReview, needs --kubeconfig); AlwaysAllow: every authenticated request is allowed.",
    set: (s, raw) => void (s.layer.authorizationMode = v.authorizationMode(raw)) },
  { name: "authorization-webhook-cache-authorized-ttl", type: "duration", group: "Kubelet API", field: "authorization.webhook.cacheAuthorizedTTL",
    defaultText: dur(defaults.authorizationCacheAuthorizedTTLMs), usage: "How long an allowing SubjectAccessReview answer is cached.",
    set: (s, raw) => void (s.layer.authorizationCacheAuthorizedTTLMs = v.positiveDuration(raw)) },
  { name: "authorization-webhook-cache-unauthorized-ttl", type: "duration", group: "Kubelet API", field: "authorization.webhook.cacheUnauthorizedTTL",
    defaultText: dur(defaults.authorizationCacheUnauthorizedTTLMs), usage: "How long a denying SubjectAccessReview answer is cached.",
    set: (s, raw) => void (s.layer.authorizationCacheUnauthorizedTTLMs = v.positiveDuration(raw)) },
  { name: "feature-gates", type: "mapStringBool", group: "Features and logging", field: "featureGates",
    usage: "Feature gates as 'Name=true|false,...'. EventedPLEG (default true): use the runtime's event stream, relisting as fallback.",
    set: (s, raw) => void (s.layer.featureGates = parseGateList(raw, s.layer.featureGates ?? {})) },
  { name: "v", short: "v", type: "Level", group: "Features and logging", field: "logging.verbosity", defaultText: "0",
    usage: "Log verbosity; debug lines of level <= v are printed.",
    set: (s, raw) => void (s.layer.verbosity = v.verbosityLevel(v.intFromString(raw))) },
  { name: "logging-format", type: "string", group: "Features and logging", field: "logging.format", defaultText: "text",
    usage: "Log format: text (key=value) or json (one object per line).",
    set: (s, raw) => void (s.layer.loggingFormat = v.loggingFormat(raw)) },
  { name: "version", bool: true, type: "", group: "Other", usage: "Print the version and exit.",
    set: (s, raw) => void (s.version = v.boolFromString(raw)) },
  { name: "help", short: "h", bool: true, type: "", group: "Other", usage: "Print this help and exit.",
    set: (s, raw) => void (s.help = v.boolFromString(raw)) },
];

/** The kubelet's other flags: type-checked, then listed at start as not acted on. */
const compatDefs: FlagDef[] = kubeletCompatFlags.map((f) => ({
  name: f.name,
  bool: f.type === "bool",
  type: f.type,
  group: "Kubelet flags accepted for compatibility",
  usage: "Accepted as the kubelet's; bunlet does not act on it.",
  field: f.field,
  compat: true,
  set: (s, raw) => {
    checkCompatValue(f.type, raw);
    s.ignored.push({ flag: `--${f.name}`, field: f.field });
  },
}));

/** Every flag bunlet takes: its own and the kubelet's it accepts. */
export const allFlagDefs: readonly FlagDef[] = [...flagDefs, ...compatDefs];

const byName = new Map<string, FlagDef>();
for (const d of allFlagDefs) {
  if (byName.has(d.name)) throw new Error(`flag --${d.name} is defined twice`);
  byName.set(d.name, d);
}
const byShort = new Map(allFlagDefs.filter((d) => d.short).map((d) => [d.short!, d]));

function apply(def: FlagDef, shown: string, raw: string, state: FlagState): void {
  try {
    def.set(state, raw);
  } catch (err) {
    if (!(err instanceof v.ValueError)) throw err;
    throw new ConfigError(shown, `bunlet: invalid value ${JSON.stringify(raw)} for flag ${shown}: ${err.message}`);
  }
}

/**
 * Parses argv (without the program name). Stops at --help, as pflag does, so later flags are
 * not judged; any other problem throws ConfigError naming the flag.
 */
export function parseFlags(argv: readonly string[]): FlagState {
  const state: FlagState = { layer: {}, ignored: [], version: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--" || !arg.startsWith("-") || arg === "-") {
      const extra = arg === "--" ? argv[i + 1] : arg;
      if (extra === undefined) break;
      throw new ConfigError(extra, `bunlet: unknown command ${JSON.stringify(extra)}: bunlet takes flags only`);
    }
    if (arg.startsWith("--")) {
      const body = arg.slice(2);
      if (body.startsWith("-") || body.startsWith("=")) throw new ConfigError(arg, `bunlet: bad flag syntax: ${arg}`);
      const eq = body.indexOf("=");
      const given = eq < 0 ? body : body.slice(0, eq);
      const def = byName.get(given.replaceAll("_", "-"));
      const shown = `--${given}`;
      if (def === undefined) throw new ConfigError(shown, `bunlet: unknown flag: ${shown}`);
      let raw: string;
      if (eq >= 0) raw = body.slice(eq + 1);
      else if (def.bool) raw = "true";
      else if (i + 1 < argv.length) raw = argv[++i];
      else throw new ConfigError(shown, `bunlet: flag needs an argument: ${shown}`);
      apply(def, shown, raw, state);
    } else {
      // Shorthands: "-h", "-v4", "-v=4", "-v 4".
      const letter = arg[1];
      const def = byShort.get(letter);
      const shown = `-${letter}`;
      if (def === undefined) throw new ConfigError(shown, `bunlet: unknown shorthand flag: '${letter}' in ${arg}`);
      let rest = arg.slice(2);
      if (rest.startsWith("=")) rest = rest.slice(1);
      let raw: string;
      if (arg.length > 2) raw = rest;
      else if (def.bool) raw = "true";
      else if (i + 1 < argv.length) raw = argv[++i];
      else throw new ConfigError(shown, `bunlet: flag needs an argument: '${letter}' in ${arg}`);
      apply(def, shown, raw, state);
    }
    if (state.help) return state;
  }
  return state;
}
