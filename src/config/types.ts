/**
 * The effective bunlet configuration: defaults, overlaid by the KubeletConfiguration file, overlaid
 * by flags (the kubelet's precedence). Field names follow KubeletConfiguration where one exists;
 * durations are in milliseconds.
 */

import { cgroupsDefaults, type CgroupsConfig } from "./cgroups.ts";
import { upkeepDefaults, type UpkeepConfig } from "./upkeep.ts";

export type LoggingFormat = "text" | "json";
export type CgroupDriver = "cgroupfs" | "systemd";
export type AuthorizationMode = "Webhook" | "AlwaysAllow";

/** A v1.Taint as --register-with-taints and registerWithTaints give it. */
export interface RegisterTaint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** UpkeepConfig (upkeep.ts): log rotation, image GC, eviction, node shutdown; CgroupsConfig (cgroups.ts): the container manager. */
export interface BunletConfig extends UpkeepConfig, CgroupsConfig {
  /** --pod-manifest-path / staticPodPath: a directory of manifests or one file; "" = no file source. */
  staticPodPath: string;
  /** --manifest-url / staticPodURL; "" = no HTTP source. */
  staticPodURL: string;
  /** --manifest-url-header / staticPodURLHeader: headers sent with every manifest URL request. */
  staticPodURLHeader: Record<string, string[]>;
  /** --container-runtime-endpoint / containerRuntimeEndpoint; "" = run the embedded containerd. */
  containerRuntimeEndpoint: string;
  /** --root-dir: bunlet's state (embedded containerd lives under <rootDir>/containerd). */
  rootDir: string;
  /** --lock-file: a lock file taken besides <rootDir>/bunlet.lock; "" = none. */
  lockFile: string;
  /** --exit-on-lock-contention: wait for the lock's holder to leave, and leave when another bunlet asks. */
  exitOnLockContention: boolean;
  /** --pod-logs-dir / podLogsDir: <podLogsDir>/<ns>_<name>_<uid>/<container>/<n>.log */
  podLogsDir: string;
  /** --container-logs-dir (bunlet): the /var/log/containers symlinks. */
  containerLogsDir: string;
  /** --cgroup-driver / cgroupDriver: how pod cgroups are made (systemd: slices), and the embedded containerd's SystemdCgroup. */
  cgroupDriver: CgroupDriver;
  /** --resolv-conf / resolvConf: the node resolver file pods inherit (Default, ClusterFirst); "" = none. */
  resolvConf: string;
  /** --pod-cidr / podCIDR: the embedded containerd's pod subnet (kubelet: standalone mode only); "" = the Node's when joined, else 10.88.0.0/16. */
  podCIDR: string;
  /** --cni-bridge-name (bunlet): the embedded containerd's CNI bridge, so two bunlets on one host do not share one. */
  cniBridgeName: string;
  /** --cni-conf-dir: the host's CNI conf dir the embedded containerd reads (a cluster CNI's); "" = bunlet renders its own bridge. */
  cniConfDir: string;
  /** --cni-bin-dir: where the embedded containerd finds CNI plugins; "" = /usr/lib/cni. */
  cniBinDir: string;
  /** --containerd (bunlet): the containerd binary the embedded containerd runs; "" = containerd on PATH. */
  containerdPath: string;
  /** --pod-infra-container-image: the embedded containerd's sandbox image; "" = registry.k8s.io/pause:3.10.2. */
  podInfraContainerImage: string;
  /** --hostname-override / --node-name, else the OS hostname; always lower-cased. */
  nodeName: string;
  /** --kubeconfig: the API server to join; "" = standalone (no registration, status or lease). */
  kubeconfig: string;
  /** --node-ip: the node's InternalIP addresses (comma-separated for dual stack); [] = the default route's address. */
  nodeIPs: string[];
  /** --node-labels: added to the Node at registration. */
  nodeLabels: Record<string, string>;
  /** --register-node / registerNode. */
  registerNode: boolean;
  /** --register-with-taints / registerWithTaints. */
  registerWithTaints: RegisterTaint[];
  /** --max-pods / maxPods: the node's pod capacity. */
  maxPods: number;
  /** userNamespaces.idsPerPod: the host IDs each `hostUsers: false` pod gets (a multiple of 65536). */
  userNamespacesIdsPerPod: number;
  /** --node-status-update-frequency / nodeStatusUpdateFrequency. */
  nodeStatusUpdateFrequencyMs: number;
  /** nodeStatusReportFrequency: the longest time between two status patches. */
  nodeStatusReportFrequencyMs: number;
  /** nodeLeaseDurationSeconds: the Lease's duration; it is renewed every quarter of it. */
  nodeLeaseDurationSeconds: number;
  /** --cluster-dns / clusterDNS: the resolver IPs of ClusterFirst pods; [] = the node's resolver. */
  clusterDNS: string[];
  /** --cluster-domain / clusterDomain: the cluster's DNS domain, searched by ClusterFirst pods; "" = none. */
  clusterDomain: string;
  /** kubeAPIQPS / kubeAPIBurst: the client-side rate limit of API requests. */
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  /**
   * eventRecordQPS / eventBurst: the client-side rate limit of the event client; a QPS of 0 is no
   * limit, a burst of 0 client-go's default of 10.
   */
  eventRecordQPS: number;
  eventBurst: number;
  /**
   * --allowed-unsafe-sysctls / allowedUnsafeSysctls: sysctls (or prefixes ending in `*`) pods may
   * set beyond the safe ones; admission rejects any other with SysctlForbidden.
   */
  allowedUnsafeSysctls: string[];
  /** --address / address: where the read-only port listens. */
  address: string;
  /** Where the kubelet API (--port) listens: --address when given, else 0.0.0.0 as the kubelet. */
  kubeletAddress: string;
  /** --enable-server / enableServer: serve the kubelet API on --port. */
  enableServer: boolean;
  /** enableSystemLogHandler: serve /var/log on /logs/ of the kubelet API (default true). */
  enableSystemLogHandler: boolean;
  /** enableSystemLogQuery: the node log query (/logs/?query=…, journalctl) (default false, as the kubelet). */
  enableSystemLogQuery: boolean;
  /** --port / port: the kubelet API (TLS, authenticated and authorized). */
  port: number;
  /** --tls-cert-file / tlsCertFile and --tls-private-key-file; both "" = a self-signed pair under certDir. */
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** --tls-min-version / tlsMinVersion: a Go name (VersionTLS12, VersionTLS13); "" = VersionTLS12. */
  tlsMinVersion: string;
  /** --tls-cipher-suites / tlsCipherSuites: Go names; [] = Go's default TLS 1.2 suites. */
  tlsCipherSuites: string[];
  /** --max-open-files / maxOpenFiles: the RLIMIT_NOFILE set at start (soft and hard), as the kubelet. */
  maxOpenFiles: number;
  /** --cert-dir: where the self-signed serving certificate is kept; "" = <rootDir>/pki. */
  certDir: string;
  /** --client-ca-file / authentication.x509.clientCAFile; "" = no client certificate authentication. */
  clientCAFile: string;
  /** --authentication-token-webhook / authentication.webhook.enabled: bearer tokens through TokenReview. */
  authenticationWebhookEnabled: boolean;
  /** --authentication-token-webhook-cache-ttl / authentication.webhook.cacheTTL. */
  authenticationWebhookCacheTTLMs: number;
  /** --anonymous-auth / authentication.anonymous.enabled. */
  anonymousAuth: boolean;
  /** --authorization-mode / authorization.mode. */
  authorizationMode: AuthorizationMode;
  /** authorization.webhook.cacheAuthorizedTTL / cacheUnauthorizedTTL. */
  authorizationCacheAuthorizedTTLMs: number;
  authorizationCacheUnauthorizedTTLMs: number;
  /** --read-only-port / readOnlyPort; 0 = off. */
  readOnlyPort: number;
  /** --healthz-port / healthzPort; 0 = off. */
  healthzPort: number;
  /** --healthz-bind-address / healthzBindAddress. */
  healthzBindAddress: string;
  fileCheckFrequencyMs: number;
  httpCheckFrequencyMs: number;
  syncFrequencyMs: number;
  runtimeRequestTimeoutMs: number;
  /** Every gate bunlet knows, with its effective value (defaults filled in). */
  featureGates: Record<string, boolean>;
  verbosity: number;
  loggingFormat: LoggingFormat;
}

/**
 * A flag, a config-file field or the file itself is wrong. The message is the one line bunlet
 * prints before exiting with status 2; flagOrField names what to fix ("--sync-frequency",
 * "syncFrequency", "logging.format", "--config").
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly flagOrField: string,
    message: string,
  ) {
    super(message);
  }
}

/** Something parseArgs wants logged once a logger exists (the settings bunlet does not act on). */
export interface ConfigNotice {
  level: "debug" | "warn";
  msg: string;
  fields: Record<string, unknown>;
}

export type ParseResult =
  | { kind: "run"; config: BunletConfig; notices: ConfigNotice[] }
  | { kind: "version"; text: string }
  | { kind: "help"; text: string };

/** What parseArgs needs from the machine; tests pass fakes. */
export interface ParseEnv {
  hostname(): string;
  /** The file's text; throws a Node-style error (with `code`) when it cannot be read. */
  readFile(path: string): string;
  /** The names in a directory (--config-dir); the real directory when absent. Throws a Node-style error. */
  readDir?(path: string): string[];
}

export const DEFAULT_READ_ONLY_PORT = 10255;

/** Defaults that do not depend on the environment or on whether --config was given. */
export const defaults = {
  ...upkeepDefaults,
  ...cgroupsDefaults,
  staticPodPath: "",
  staticPodURL: "",
  containerRuntimeEndpoint: "",
  rootDir: "/var/lib/bunlet",
  lockFile: "",
  exitOnLockContention: false,
  podLogsDir: "/var/log/pods",
  containerLogsDir: "/var/log/containers",
  podCIDR: "",
  cniBridgeName: "bunlet0",
  cniConfDir: "",
  cniBinDir: "",
  containerdPath: "",
  podInfraContainerImage: "",
  cgroupDriver: "cgroupfs" as CgroupDriver,
  resolvConf: "/etc/resolv.conf",
  kubeconfig: "",
  nodeIPs: [] as string[],
  registerNode: true,
  maxPods: 110,
  userNamespacesIdsPerPod: 65536,
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 5 * 60_000,
  nodeLeaseDurationSeconds: 40,
  kubeAPIQPS: 50,
  kubeAPIBurst: 100,
  eventRecordQPS: 50,
  eventBurst: 100,
  allowedUnsafeSysctls: [],
  clusterDNS: [],
  clusterDomain: "",
  // The kubelet binds 0.0.0.0; bunlet's read-only port has no authentication, so loopback.
  address: "127.0.0.1",
  healthzPort: 10248,
  enableServer: true,
  enableSystemLogHandler: true,
  enableSystemLogQuery: false,
  port: 10250,
  tlsCertFile: "",
  tlsPrivateKeyFile: "",
  tlsMinVersion: "",
  tlsCipherSuites: [],
  maxOpenFiles: 1_000_000,
  certDir: "",
  clientCAFile: "",
  // KubeletConfiguration v1beta1's defaults (the secure ones), not the kubelet's legacy flag defaults.
  authenticationWebhookEnabled: true,
  authenticationWebhookCacheTTLMs: 2 * 60_000,
  anonymousAuth: false,
  authorizationMode: "Webhook" as AuthorizationMode,
  authorizationCacheAuthorizedTTLMs: 5 * 60_000,
  authorizationCacheUnauthorizedTTLMs: 30_000,
  healthzBindAddress: "127.0.0.1",
  fileCheckFrequencyMs: 20_000,
  httpCheckFrequencyMs: 20_000,
  syncFrequencyMs: 60_000,
  runtimeRequestTimeoutMs: 120_000,
  verbosity: 0,
  loggingFormat: "text" as LoggingFormat,
} satisfies Partial<BunletConfig>;

/** A partial configuration from one layer (file or flags). */
export type ConfigLayer = Partial<BunletConfig>;
