import { describe, expect, test } from "bun:test";
import { ConfigError, parseArgs, type BunletConfig } from "../../../src/config/index.ts";
import type { ParseEnv } from "../../../src/config/types.ts";

const env: ParseEnv = {
  hostname: () => "Edge-Node-1",
  readFile: (path) => {
    throw Object.assign(new Error(`ENOENT: open '${path}'`), { code: "ENOENT" });
  },
};

function run(...argv: string[]): BunletConfig {
  const r = parseArgs(argv, env);
  if (r.kind !== "run") throw new Error(`expected a run result, got ${r.kind}`);
  return r.config;
}

function failure(...argv: string[]): ConfigError {
  try {
    parseArgs(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected ${argv.join(" ")} to be rejected`);
}

describe("flags set the configuration, kubelet spelling, pflag syntax", () => {
  const cases: [string, string[], Partial<BunletConfig>][] = [
    ["--flag=value", ["--pod-manifest-path=/etc/kubernetes/manifests"], { staticPodPath: "/etc/kubernetes/manifests" }],
    ["--flag value", ["--pod-manifest-path", "/etc/m"], { staticPodPath: "/etc/m" }],
    ["underscores read as dashes", ["--pod_manifest_path=/etc/m"], { staticPodPath: "/etc/m" }],
    ["a value may start with a dash", ["--manifest-url", "-weird"], { staticPodURL: "-weird" }],
    ["the last occurrence wins", ["--sync-frequency=10s", "--sync-frequency=30s"], { syncFrequencyMs: 30_000 }],
    ["durations", ["--file-check-frequency=1s", "--http-check-frequency=1m30s", "--runtime-request-timeout=2s"],
      { fileCheckFrequencyMs: 1_000, httpCheckFrequencyMs: 90_000, runtimeRequestTimeoutMs: 2_000 }],
    ["ports, 0 = off", ["--read-only-port=0", "--healthz-port", "12345"], { readOnlyPort: 0, healthzPort: 12345 }],
    ["addresses", ["--address=0.0.0.0", "--healthz-bind-address=::1"], { address: "0.0.0.0", healthzBindAddress: "::1" }],
    ["runtime endpoint", ["--container-runtime-endpoint=unix:///run/containerd/containerd.sock"],
      { containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock" }],
    ["runtime endpoint as a bare path", ["--container-runtime-endpoint=/run/c.sock"], { containerRuntimeEndpoint: "/run/c.sock" }],
    ["directories", ["--root-dir=/srv/bunlet", "--pod-logs-dir=/srv/logs/pods", "--container-logs-dir=/srv/logs/containers"],
      { rootDir: "/srv/bunlet", podLogsDir: "/srv/logs/pods", containerLogsDir: "/srv/logs/containers" }],
    ["the embedded containerd's pod network", ["--pod-cidr=10.77.0.0/16", "--cni-bridge-name=bunlet1"], { podCIDR: "10.77.0.0/16", cniBridgeName: "bunlet1" }],
    ["a cluster CNI's directories", ["--cni-conf-dir=/etc/cni/net.d", "--cni-bin-dir=/opt/cni/bin"], { cniConfDir: "/etc/cni/net.d", cniBinDir: "/opt/cni/bin" }],
    ["the embedded containerd's binary", ["--containerd=/opt/containerd-1.7/bin/containerd"], { containerdPath: "/opt/containerd-1.7/bin/containerd" }],
    ["the embedded containerd's sandbox image", ["--pod-infra-container-image=registry.example:5000/edge/pause:3.10"],
      { podInfraContainerImage: "registry.example:5000/edge/pause:3.10" }],
    ["an IPv6 pod network", ["--pod-cidr=fd00:10:88::/64"], { podCIDR: "fd00:10:88::/64" }],
    ["a dual-stack pod network", ["--pod-cidr=10.77.0.0/16,fd00:10:77::/64"], { podCIDR: "10.77.0.0/16,fd00:10:77::/64" }],
    ["--hostname-override is lower-cased", ["--hostname-override=Worker-7"], { nodeName: "worker-7" }],
    ["--node-name is the same flag", ["--node-name=edge.example"], { nodeName: "edge.example" }],
    ["--kubeconfig is stored", ["--kubeconfig=/etc/kubernetes/kubelet.conf"], { kubeconfig: "/etc/kubernetes/kubelet.conf" }],
    ["--node-ip, dual stack", ["--node-ip=192.0.2.7,2001:db8::7"], { nodeIPs: ["192.0.2.7", "2001:db8::7"] }],
    ["--node-labels merge across occurrences", ["--node-labels=a=1,example.com/zone=", "--node-labels", "node.kubernetes.io/role=edge"],
      { nodeLabels: { a: "1", "example.com/zone": "", "node.kubernetes.io/role": "edge" } }],
    ["--register-node=false", ["--register-node=false"], { registerNode: false }],
    ["--register-with-taints", ["--register-with-taints=dedicated=edge:NoSchedule,example.com/gpu:NoExecute"],
      { registerWithTaints: [{ key: "dedicated", value: "edge", effect: "NoSchedule" }, { key: "example.com/gpu", effect: "NoExecute" }] }],
    ["--max-pods and --node-status-update-frequency", ["--max-pods=30", "--node-status-update-frequency=4s"], { maxPods: 30, nodeStatusUpdateFrequencyMs: 4000, nodeStatusReportFrequencyMs: 300_000 }],
    ["--event-qps 0 (no limit) and --event-burst", ["--event-qps=0", "--event-burst=5"], { eventRecordQPS: 0, eventBurst: 5 }],
    ["--v", ["--v=4"], { verbosity: 4 }],
    ["-v N", ["-v", "3"], { verbosity: 3 }],
    ["-vN", ["-v5"], { verbosity: 5 }],
    ["the kubelet API's flags", ["--port=11250", "--tls-cert-file=/c.crt", "--tls-private-key-file=/c.key", "--client-ca-file=/ca.crt", "--anonymous-auth",
      "--authentication-token-webhook=false", "--authorization-mode=AlwaysAllow", "--cert-dir=/pki"],
      { port: 11250, tlsCertFile: "/c.crt", tlsPrivateKeyFile: "/c.key", clientCAFile: "/ca.crt", anonymousAuth: true,
        authenticationWebhookEnabled: false, authorizationMode: "AlwaysAllow", certDir: "/pki" }],
    ["--address moves the kubelet API too", ["--address=10.0.0.5"], { address: "10.0.0.5", kubeletAddress: "10.0.0.5" }],
    ["-v=N", ["-v=2"], { verbosity: 2 }],
    ["--logging-format=json", ["--logging-format=json"], { loggingFormat: "json" }],
    ["--allowed-unsafe-sysctls", ["--allowed-unsafe-sysctls=kernel.msg*,net.core.somaxconn"], { allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"] }],
    ["--cluster-dns and --cluster-domain", ["--cluster-dns=10.96.0.10,fd00::a", "--cluster-domain=cluster.local"], { clusterDNS: ["10.96.0.10", "fd00::a"], clusterDomain: "cluster.local" }],
    ["headers: one pair per flag, repeatable", ["--manifest-url-header=Authorization:Bearer x", "--manifest-url-header", "X-A:1"],
      { staticPodURLHeader: { Authorization: ["Bearer x"], "X-A": ["1"] } }],
    ["headers: comma-separated pairs, a name may repeat, the value may hold colons", ["--manifest-url-header=X-A:1, X-A : 2,X-B:a:b"],
      { staticPodURLHeader: { "X-A": ["1", "2"], "X-B": ["a:b"] } }],
  ];
  for (const [name, argv, want] of cases) {
    test(name, () => expect(run(...argv)).toMatchObject(want));
  }

  test("feature gates merge across occurrences and keep the defaults of gates not named", () => {
    const c = run("--feature-gates=EventedPLEG=false", "--feature-gates", "ContainerCheckpoint=false, NodeLogQuery=true");
    expect(c.featureGates).toMatchObject({ EventedPLEG: false, ContainerCheckpoint: false, NodeLogQuery: true, SidecarContainers: true });
  });
});

describe("defaults without --config (the kubelet's legacy defaults)", () => {
  test("every field has bunlet's default", () => {
    expect(run()).toEqual({
      staticPodPath: "",
      staticPodURL: "",
      staticPodURLHeader: {},
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
      cgroupDriver: "cgroupfs",
      resolvConf: "/etc/resolv.conf",
      nodeName: "edge-node-1",
      kubeconfig: "",
      nodeIPs: [],
      nodeLabels: {},
      registerNode: true,
      registerWithTaints: [],
      maxPods: 110,
      userNamespacesIdsPerPod: 65536,
      nodeStatusUpdateFrequencyMs: 10_000,
      nodeStatusReportFrequencyMs: 300_000,
      nodeLeaseDurationSeconds: 40,
      kubeAPIQPS: 50,
      kubeAPIBurst: 100,
      eventRecordQPS: 50,
      eventBurst: 100,
      allowedUnsafeSysctls: [],
      clusterDNS: [],
      clusterDomain: "",
      address: "127.0.0.1",
      kubeletAddress: "0.0.0.0",
      enableServer: true,
      enableSystemLogHandler: true,
      enableSystemLogQuery: false,
      port: 10250,
      tlsCertFile: "",
      tlsPrivateKeyFile: "",
      tlsMinVersion: "",
      tlsCipherSuites: [],
      maxOpenFiles: 1_000_000,
      certDir: "/var/lib/bunlet/pki",
      clientCAFile: "",
      authenticationWebhookEnabled: true,
      authenticationWebhookCacheTTLMs: 120_000,
      anonymousAuth: false,
      authorizationMode: "Webhook",
      authorizationCacheAuthorizedTTLMs: 300_000,
      authorizationCacheUnauthorizedTTLMs: 30_000,
      readOnlyPort: 10255,
      healthzPort: 10248,
      healthzBindAddress: "127.0.0.1",
      fileCheckFrequencyMs: 20_000,
      httpCheckFrequencyMs: 20_000,
      syncFrequencyMs: 60_000,
      runtimeRequestTimeoutMs: 120_000,
      featureGates: expect.objectContaining({ EventedPLEG: true }),
      verbosity: 0,
      loggingFormat: "text",
      containerLogMaxSize: 10 * 1024 * 1024,
      containerLogMaxFiles: 5,
      containerLogMaxWorkers: 1,
      containerLogMonitorIntervalMs: 10_000,
      podLogsMaxTotalSize: 0,
      containerdLogMaxSize: 10 * 1024 * 1024,
      containerdLogMaxFiles: 3,
      containerdLogLevel: "info",
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      imageMinimumGCAgeMs: 120_000,
      imageMaximumGCAgeMs: 0,
      imageGCPeriodMs: 300_000,
      evictionSoft: {},
      evictionSoftGracePeriod: {},
      evictionMinimumReclaim: {},
      evictionPressureTransitionPeriodMs: 300_000,
      evictionMaxPodGracePeriod: 0,
      mergeDefaultEvictionSettings: false,
      evictStaticPods: false,
      shutdownGracePeriodMs: 0,
      shutdownGracePeriodCriticalPodsMs: 0,
      offlineStart: true,
      cgroupsPerQOS: true,
      cgroupRoot: "/",
      podPidsLimit: -1,
      cpuCFSQuota: true,
      kubeReserved: {},
      systemReserved: {},
      kubeReservedCgroup: "",
      systemReservedCgroup: "",
      enforceNodeAllocatable: ["pods"],
      qosReserved: {},
      kubeletCgroups: "",
      systemCgroups: "",
      runtimeCgroups: "",
    });
  });
});

describe("the kubelet's other flags are accepted, type-checked, and listed once as not acted on", () => {
  // A systemd drop-in written for the kubelet (10-kubeadm.conf style, plus an edge operator's extras).
  const dropIn = [
    "--fail-swap-on=false",
    "--cgroup-driver=cgroupfs",
    "--eviction-hard=memory.available<100Mi,nodefs.available<10%",
    "--max-pods=50",
    "--pod-infra-container-image=registry.k8s.io/pause:3.9",
    "--cluster-dns=10.96.0.10,10.96.0.11",
    "--cluster-domain=cluster.local",
    "--node-labels=role=edge,zone=a",
    "--register-with-taints=dedicated=edge:NoSchedule",
    "--anonymous-auth=false",
    "--rotate-certificates",
    "--v=2",
  ];

  test("they load, and bunlet's own flags still act", () => {
    const r = parseArgs([...dropIn, "--resolv-conf=/run/systemd/resolve/resolv.conf"], env);
    if (r.kind !== "run") throw new Error(r.kind);
    expect(r.config).toMatchObject({
      cgroupDriver: "cgroupfs",
      resolvConf: "/run/systemd/resolve/resolv.conf",
      verbosity: 2,
      podInfraContainerImage: "registry.k8s.io/pause:3.9",
    });
  });

  test("one warning lists every flag not acted on, with its config field", () => {
    const r = parseArgs(dropIn, env);
    if (r.kind !== "run") throw new Error(r.kind);
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toMatchObject({ level: "warn", msg: "kubelet settings accepted for compatibility but not acted on by bunlet" });
    expect(r.notices[0].fields.settings).toBe(
      "--fail-swap-on (failSwapOn), --rotate-certificates (rotateCertificates)",
    );
  });

  test("nothing given that bunlet ignores, nothing logged", () => {
    const r = parseArgs(["--pod-manifest-path=/etc/m"], env);
    expect(r.kind === "run" && r.notices).toEqual([]);
  });

  test("cgroupDriver systemd is acted on (pod slices), with the embedded containerd too: nothing to note", () => {
    for (const extra of [[], ["--container-runtime-endpoint=unix:///run/containerd/containerd.sock"]]) {
      const r = parseArgs(["--cgroup-driver=systemd", ...extra], env);
      if (r.kind !== "run") throw new Error(r.kind);
      expect(r.config.cgroupDriver).toBe("systemd");
      expect(r.notices).toEqual([]);
    }
  });

  test("--cgroups-per-qos=false with --enforce-node-allocatable= (empty) runs pods without a hierarchy; no cgroupRoot default then", () => {
    const r = parseArgs(["--cgroups-per-qos=false", "--enforce-node-allocatable="], env);
    if (r.kind !== "run") throw new Error(r.kind);
    expect(r.config).toMatchObject({ cgroupsPerQOS: false, enforceNodeAllocatable: [], cgroupRoot: "" });
  });

  test("durations that the kubelet lets go negative parse", () => {
    expect(parseArgs(["--volume-stats-agg-period=-1s"], env).kind).toBe("run");
  });
});

describe("the flag tables", () => {
  test("every kubelet compatibility flag names a config field bunlet knows as a kubelet field", async () => {
    const { kubeletCompatFlags } = await import("../../../src/config/kubelet-flags.ts");
    const { ignoredKubeletFields, ignoredLoggingFields } = await import("../../../src/config/kubelet-fields.ts");
    for (const f of kubeletCompatFlags) {
      if (!f.field) continue;
      const [top, sub] = f.field.split(".");
      if (top === "logging") expect({ flag: f.name, known: ignoredLoggingFields.has(sub) }).toEqual({ flag: f.name, known: true });
      else expect({ flag: f.name, known: ignoredKubeletFields.has(top) }).toEqual({ flag: f.name, known: true });
    }
  });

  test("no flag is defined twice, and --help lists the compatibility flags by name", async () => {
    const { allFlagDefs } = await import("../../../src/config/flags.ts");
    const { helpText } = await import("../../../src/config/help.ts");
    const names = allFlagDefs.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const help = helpText();
    for (const name of ["--fail-swap-on", "--eviction-hard", "--max-pods", "--pod-infra-container-image", "--cluster-dns"]) expect(help).toContain(name);
  });
});

describe("--help and --version", () => {
  test("--help returns the help text, which lists every flag with its config field", () => {
    const r = parseArgs(["--help"], env);
    expect(r.kind).toBe("help");
    if (r.kind !== "help") return;
    for (const flag of ["--config", "--pod-manifest-path", "--manifest-url-header", "--sync-frequency", "--feature-gates", "-v, --v", "-h, --help"]) {
      expect(r.text).toContain(flag);
    }
    expect(r.text).toContain("(default 1m0s) [config: syncFrequency]");
  });
  test("-h stops parsing, so a bad flag after it is not judged", () => expect(parseArgs(["-h", "--nope"], env).kind).toBe("help"));
  test("--version prints bunlet v<package version>", () => {
    expect(parseArgs(["--version"], env)).toEqual({ kind: "version", text: expect.stringMatching(/^bunlet v\d+\.\d+\.\d+/) });
  });
  test("--version=false runs", () => expect(parseArgs(["--version=false"], env).kind).toBe("run"));
  test("--version does not read the config file", () => expect(parseArgs(["--config=/missing.yaml", "--version"], env).kind).toBe("version"));
});

describe("bad flags exit 2 with one line that names the flag", () => {
  const cases: [string[], string, string][] = [
    [["--no-such-flag"], "--no-such-flag", "bunlet: unknown flag: --no-such-flag"],
    [["--no-such-flag=1"], "--no-such-flag", "bunlet: unknown flag: --no-such-flag"],
    [["-x"], "-x", "bunlet: unknown shorthand flag: 'x' in -x"],
    [["---triple"], "---triple", "bunlet: bad flag syntax: ---triple"],
    [["--pod-cidr=10.77.0.0"], "--pod-cidr", 'bunlet: invalid value "10.77.0.0" for flag --pod-cidr: expected a CIDR such as 10.88.0.0/16, or an IPv4 and an IPv6 CIDR separated by a comma, found "10.77.0.0"'],
    [["--pod-cidr=10.77.0.0/33"], "--pod-cidr", 'bunlet: invalid value "10.77.0.0/33" for flag --pod-cidr: expected a CIDR such as 10.88.0.0/16, or an IPv4 and an IPv6 CIDR separated by a comma, found "10.77.0.0/33"'],
    [["--pod-cidr=10.77.0.0/16,10.78.0.0/16"], "--pod-cidr", 'bunlet: invalid value "10.77.0.0/16,10.78.0.0/16" for flag --pod-cidr: expected a CIDR such as 10.88.0.0/16, or an IPv4 and an IPv6 CIDR separated by a comma, found "10.77.0.0/16,10.78.0.0/16"'],
    [["--pod-cidr=fe80::1%eth0/64"], "--pod-cidr", 'bunlet: invalid value "fe80::1%eth0/64" for flag --pod-cidr: expected a CIDR such as 10.88.0.0/16, or an IPv4 and an IPv6 CIDR separated by a comma, found "fe80::1%eth0/64"'],
    [["--cni-bridge-name=a-very-long-bridge-name"], "--cni-bridge-name", 'bunlet: invalid value "a-very-long-bridge-name" for flag --cni-bridge-name: expected an interface name of 1-15 letters, digits, \'.\', \'_\' or \'-\', found "a-very-long-bridge-name"'],
    [["--sync-frequency=5x"], "--sync-frequency", 'bunlet: invalid value "5x" for flag --sync-frequency: unknown unit "x" in duration "5x"'],
    [["--sync-frequency"], "--sync-frequency", "bunlet: flag needs an argument: --sync-frequency"],
    [["--sync-frequency=-1s"], "--sync-frequency", 'bunlet: invalid value "-1s" for flag --sync-frequency: negative duration "-1s"'],
    [["--file-check-frequency=0"], "--file-check-frequency", 'bunlet: invalid value "0" for flag --file-check-frequency: must be greater than 0, found "0"'],
    [["--read-only-port=70000"], "--read-only-port", 'bunlet: invalid value "70000" for flag --read-only-port: must be between 0 and 65535, inclusive, found 70000'],
    [["--healthz-port=ten"], "--healthz-port", 'bunlet: invalid value "ten" for flag --healthz-port: expected an integer, found "ten"'],
    [["--address=localhost"], "--address", 'bunlet: invalid value "localhost" for flag --address: expected an IP address, found "localhost"'],
    [["--v=-1"], "--v", 'bunlet: invalid value "-1" for flag --v: expected a non-negative integer log level, found -1'],
    [["--logging-format=xml"], "--logging-format", 'bunlet: invalid value "xml" for flag --logging-format: unsupported log format "xml", expected "text" or "json"'],
    [["--container-runtime-endpoint=tcp://10.0.0.1:1234"], "--container-runtime-endpoint",
      'bunlet: invalid value "tcp://10.0.0.1:1234" for flag --container-runtime-endpoint: expected unix:///path/to/socket or an absolute socket path, found "tcp://10.0.0.1:1234"'],
    [["--node-ip=192.0.2.1,192.0.2.2"], "--node-ip", 'bunlet: invalid value "192.0.2.1,192.0.2.2" for flag --node-ip: expected one IP, or an IPv4 and an IPv6 address for dual stack, found "192.0.2.1,192.0.2.2"'],
    [["--node-labels=node-role.kubernetes.io/worker="], "--node-labels",
      'bunlet: invalid value "node-role.kubernetes.io/worker=" for flag --node-labels: unknown \'kubernetes.io\' or \'k8s.io\' label "node-role.kubernetes.io/worker": a node may set only its default labels and those under kubelet.kubernetes.io/ and node.kubernetes.io/'],
    [["--register-with-taints=a=b:Sometimes"], "--register-with-taints",
      'bunlet: invalid value "a=b:Sometimes" for flag --register-with-taints: invalid taint spec "a=b:Sometimes", expected key=value:effect with effect NoSchedule, PreferNoSchedule, NoExecute'],
    [["--max-pods=-1"], "--max-pods", 'bunlet: invalid value "-1" for flag --max-pods: expected a non-negative integer, found -1'],
    [["--event-qps=-3"], "--event-qps", 'bunlet: invalid value "-3" for flag --event-qps: expected a non-negative integer, found -3'],
    [["--containerd=containerd"], "--containerd", 'bunlet: invalid value "containerd" for flag --containerd: must be an absolute path, found "containerd"'],
    [["--pod-infra-container-image=Registry.k8s.io/pause:3.10"], "--pod-infra-container-image",
      'bunlet: invalid value "Registry.k8s.io/pause:3.10" for flag --pod-infra-container-image: must be an image reference such as registry.k8s.io/pause:3.10.2, found "Registry.k8s.io/pause:3.10"'],
    [["--root-dir=var/lib"], "--root-dir", 'bunlet: invalid value "var/lib" for flag --root-dir: must be an absolute path, found "var/lib"'],
    [["--pod-logs-dir=/var/log/../pods"], "--pod-logs-dir",
      'bunlet: invalid value "/var/log/../pods" for flag --pod-logs-dir: must be a normalized path ("/var/pods"), found "/var/log/../pods"'],
    [["--feature-gates=NoSuchGate=true"], "--feature-gates", 'bunlet: invalid value "NoSuchGate=true" for flag --feature-gates: unrecognized feature gate: NoSuchGate'],
    [["--feature-gates=EventedPLEG"], "--feature-gates", 'bunlet: invalid value "EventedPLEG" for flag --feature-gates: missing bool value for EventedPLEG'],
    [["--feature-gates=EventedPLEG=maybe"], "--feature-gates",
      'bunlet: invalid value "EventedPLEG=maybe" for flag --feature-gates: invalid value of EventedPLEG=maybe, expected true or false'],
    [["--feature-gates=SidecarContainers=false"], "--feature-gates",
      'bunlet: invalid value "SidecarContainers=false" for flag --feature-gates: cannot set feature gate SidecarContainers to false, feature is locked to true'],
    [["--manifest-url-header=NoColon"], "--manifest-url-header",
      'bunlet: invalid value "NoColon" for flag --manifest-url-header: malformed pair "NoColon", expected Name:Value'],
    [["--version=maybe"], "--version", 'bunlet: invalid value "maybe" for flag --version: expected true or false, found "maybe"'],
    [["run"], "run", 'bunlet: unknown command "run": bunlet takes flags only'],
    [["--v=2", "--", "extra"], "extra", 'bunlet: unknown command "extra": bunlet takes flags only'],
    [["--hostname-override=bad_name"], "--hostname-override",
      'bunlet: node name "bad_name" is not a valid DNS subdomain; set --hostname-override'],
    [["--config="], "--config", "bunlet: --config needs a file path, found an empty string"],
    [["--max-pods=abc"], "--max-pods", 'bunlet: invalid value "abc" for flag --max-pods: expected an integer, found "abc"'],
    [["--max-pods=3000000000"], "--max-pods", 'bunlet: invalid value "3000000000" for flag --max-pods: value out of range for int32, found 3000000000'],
    [["--fail-swap-on=maybe"], "--fail-swap-on", 'bunlet: invalid value "maybe" for flag --fail-swap-on: expected true or false, found "maybe"'],
    [["--eviction-hard=memory.available=100Mi"], "--eviction-hard",
      'bunlet: invalid value "memory.available=100Mi" for flag --eviction-hard: malformed pair "memory.available=100Mi", expect string<string'],
    [["--node-labels=role"], "--node-labels", 'bunlet: invalid value "role" for flag --node-labels: malformed pair "role", expect string=string'],
    [["--register-with-taints=dedicated=edge"], "--register-with-taints",
      'bunlet: invalid value "dedicated=edge" for flag --register-with-taints: invalid taint spec "dedicated=edge", expected key=value:effect with effect NoSchedule, PreferNoSchedule, NoExecute'],
    [["--streaming-connection-idle-timeout=4x"], "--streaming-connection-idle-timeout",
      'bunlet: invalid value "4x" for flag --streaming-connection-idle-timeout: unknown unit "x" in duration "4x"'],
    [["--container-log-max-size=10 megs"], "--container-log-max-size",
      'bunlet: invalid value "10 megs" for flag --container-log-max-size: expected a quantity such as 10Mi, found "10 megs"'],
    [["--cgroup-driver=systemdd"], "--cgroup-driver", 'bunlet: invalid value "systemdd" for flag --cgroup-driver: expected "cgroupfs" or "systemd", found "systemdd"'],
    [["--kube-reserved=gpu=1"], "--kube-reserved", 'bunlet: invalid value "gpu=1" for flag --kube-reserved: cannot reserve "gpu" resource'],
    [["--system-reserved=memory=-1Gi"], "--system-reserved", 'bunlet: invalid value "memory=-1Gi" for flag --system-reserved: resource quantity for "memory" cannot be negative: -1Gi'],
    [["--qos-reserved=memory=150%"], "--qos-reserved",
      'bunlet: invalid value "memory=150%" for flag --qos-reserved: failed to parse percentage "150%" for "memory" resource: percentage must be between 0 and 100'],
    [["--enforce-node-allocatable=pods,kube-reserved"], "--config",
      'bunlet: invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" or "kube-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)'],
    [["--cgroups-per-qos=false"], "--config",
      'bunlet: invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when "pods" contained in enforceNodeAllocatable (--enforce-node-allocatable)'],
    [["--enforce-node-allocatable=pods,none"], "--config",
      'bunlet: invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified'],
    [["--enforce-node-allocatable=nodes"], "--config",
      'bunlet: invalid configuration: option "nodes" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"'],
    [["--log-dir=/var/log"], "--log-dir", "bunlet: unknown flag: --log-dir"],
    [["--logtostderr=false"], "--logtostderr", "bunlet: unknown flag: --logtostderr"],
    [["--config=/etc/bunlet/missing.yaml"], "--config", 'bunlet: cannot read config file "/etc/bunlet/missing.yaml": no such file or directory'],
  ];
  for (const [argv, flag, message] of cases) {
    test(`${argv.join(" ")} → ${flag}`, () => {
      const err = failure(...argv);
      expect(err.flagOrField).toBe(flag);
      expect(err.message).toBe(message);
      expect(err.message).not.toContain("\n");
    });
  }

  test("the first problem from the left is the one reported", () => {
    expect(failure("--sync-frequency=5x", "--no-such-flag").flagOrField).toBe("--sync-frequency");
  });

  test("an OS hostname that is not a DNS name says so", () => {
    const err = (() => {
      try {
        parseArgs([], { ...env, hostname: () => "my_host" });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err?.message).toBe('bunlet: node name "my_host" (the OS hostname) is not a valid DNS subdomain; set --hostname-override');
  });
});
