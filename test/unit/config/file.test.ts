import { describe, expect, test } from "bun:test";
import { ConfigError, parseArgs } from "../../../src/config/index.ts";
import type { ConfigNotice, ParseEnv } from "../../../src/config/types.ts";

const header = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

function envWith(files: Record<string, string>): ParseEnv {
  return {
    hostname: () => "node-a",
    readFile: (path) => {
      if (!(path in files)) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      return files[path];
    },
  };
}

function load(text: string, ...flags: string[]) {
  const r = parseArgs(["--config=/etc/bunlet/config.yaml", ...flags], envWith({ "/etc/bunlet/config.yaml": text }));
  if (r.kind !== "run") throw new Error(`expected run, got ${r.kind}`);
  return r;
}

function failure(text: string): ConfigError {
  try {
    load(text);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected the config file to be rejected");
}

describe("a KubeletConfiguration file sets the fields bunlet reads", () => {
  test("the node fields: registration, status, lease, API client limits", () => {
    const { config } = load(`${header}
registerNode: false
registerWithTaints:
- {key: dedicated, value: edge, effect: NoSchedule}
- {key: example.com/gpu, effect: NoExecute}
maxPods: 42
nodeStatusUpdateFrequency: 4s
nodeStatusReportFrequency: 1m
nodeLeaseDurationSeconds: 20
kubeAPIQPS: 20.5
kubeAPIBurst: 40
eventRecordQPS: 0
eventBurst: 7
`);
    expect(config).toMatchObject({
      registerNode: false,
      registerWithTaints: [{ key: "dedicated", value: "edge", effect: "NoSchedule" }, { key: "example.com/gpu", effect: "NoExecute" }],
      maxPods: 42,
      nodeStatusUpdateFrequencyMs: 4000,
      nodeStatusReportFrequencyMs: 60_000,
      nodeLeaseDurationSeconds: 20,
      kubeAPIQPS: 20.5,
      kubeAPIBurst: 40,
      eventRecordQPS: 0,
      eventBurst: 7,
    });
  });

  test("allowedUnsafeSysctls is read from the file; the flag overrides it", () => {
    expect(load(`${header}allowedUnsafeSysctls: ["kernel.msg*", net.core.somaxconn]
`).config).toMatchObject({ allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"] });
    expect(load(`${header}allowedUnsafeSysctls: ["kernel.msg*"]
`, "--allowed-unsafe-sysctls=kernel.sem").config).toMatchObject({ allowedUnsafeSysctls: ["kernel.sem"] });
  });

  test("event limits: the file's eventBurst 0 is defaulted to 100 as the kubelet's defaulting does; the flags override, 0 included", () => {
    expect(load(`${header}eventBurst: 0
`).config).toMatchObject({ eventRecordQPS: 50, eventBurst: 100 });
    expect(load(`${header}eventRecordQPS: 5
eventBurst: 9
`, "--event-qps=0", "--event-burst=0").config).toMatchObject({ eventRecordQPS: 0, eventBurst: 0 });
    expect(failure(`${header}eventRecordQPS: -1
`).message).toContain("eventRecordQPS");
  });

  test("nodeStatusReportFrequency follows a nodeStatusUpdateFrequency the file sets (the kubelet's backward compatibility)", () => {
    expect(load(`${header}nodeStatusUpdateFrequency: 20s\n`).config.nodeStatusReportFrequencyMs).toBe(20_000);
    expect(load(header, "--node-status-update-frequency=20s").config.nodeStatusReportFrequencyMs).toBe(300_000);
  });

  test("a bad taint or lease duration names the field", () => {
    expect(failure(`${header}registerWithTaints: [{key: a, effect: Never}]\n`).message).toBe(
      'bunlet: /etc/bunlet/config.yaml: registerWithTaints: invalid taint effect "Never" for "a", expected NoSchedule, PreferNoSchedule or NoExecute',
    );
    expect(failure(`${header}nodeLeaseDurationSeconds: 0\n`).message).toBe("bunlet: /etc/bunlet/config.yaml: nodeLeaseDurationSeconds: must be greater than 0, found 0");
  });

  test("userNamespaces.idsPerPod: a multiple of 65536 as the kubelet validates it, 65536 when unset", () => {
    expect(load(header).config.userNamespacesIdsPerPod).toBe(65536);
    expect(load(`${header}userNamespaces:\n  idsPerPod: 131072\n`).config.userNamespacesIdsPerPod).toBe(131072);
    const bad: [number, string][] = [
      [0, "must not be less than 65536, found 0"],
      [65535, "must not be less than 65536, found 65535"],
      [100000, "must be a multiple of 65536, found 100000"],
      [2 ** 32, "must not be more than 4294967295, found 4294967296"],
    ];
    for (const [n, why] of bad) {
      expect(failure(`${header}userNamespaces:\n  idsPerPod: ${n}\n`).message).toBe(`bunlet: /etc/bunlet/config.yaml: userNamespaces: idsPerPod: ${why}`);
    }
  });

  test("every supported field, kubelet names and types", () => {
    const { config } = load(`${header}
staticPodPath: /etc/kubernetes/manifests
staticPodURL: http://127.0.0.1:8080/pods
staticPodURLHeader:
  Authorization: ["Bearer abc"]
  X-Two: [a, b]
syncFrequency: 30s
fileCheckFrequency: 5s
httpCheckFrequency: 1m
runtimeRequestTimeout: 45s
address: 0.0.0.0
readOnlyPort: 10266
healthzPort: 0
healthzBindAddress: "::1"
podLogsDir: /srv/pods
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
featureGates:
  EventedPLEG: false
logging:
  format: json
  verbosity: 3
`);
    expect(config).toMatchObject({
      staticPodPath: "/etc/kubernetes/manifests",
      staticPodURL: "http://127.0.0.1:8080/pods",
      staticPodURLHeader: { Authorization: ["Bearer abc"], "X-Two": ["a", "b"] },
      syncFrequencyMs: 30_000,
      fileCheckFrequencyMs: 5_000,
      httpCheckFrequencyMs: 60_000,
      runtimeRequestTimeoutMs: 45_000,
      address: "0.0.0.0",
      readOnlyPort: 10266,
      healthzPort: 0,
      healthzBindAddress: "::1",
      podLogsDir: "/srv/pods",
      containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock",
      featureGates: expect.objectContaining({ EventedPLEG: false }),
      loggingFormat: "json",
      verbosity: 3,
    });
  });

  test("JSON works too", () => {
    const { config } = load('{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","syncFrequency":"2m"}');
    expect(config.syncFrequencyMs).toBe(120_000);
  });

  test("with --config the read-only port is off unless the file or a flag opens it (the kubelet's non-legacy default)", () => {
    expect(load(header).config.readOnlyPort).toBe(0);
    expect(load(`${header}readOnlyPort: 10255\n`).config.readOnlyPort).toBe(10255);
    expect(load(header, "--read-only-port=10255").config.readOnlyPort).toBe(10255);
  });

  test("flags override the file, field by field", () => {
    const { config } = load(`${header}syncFrequency: 30s\nstaticPodPath: /from/file\nlogging: {format: json, verbosity: 2}\n`,
      "--sync-frequency=10s", "--v=5");
    expect(config).toMatchObject({ syncFrequencyMs: 10_000, staticPodPath: "/from/file", verbosity: 5, loggingFormat: "json" });
  });

  test("flag headers replace the file's headers", () => {
    const { config } = load(`${header}staticPodURLHeader: {A: ["1"]}\n`, "--manifest-url-header=B:2");
    expect(config.staticPodURLHeader).toEqual({ B: ["2"] });
  });

  test("feature gates merge per gate: flags win for the gates they name", () => {
    const { config } = load(`${header}featureGates: {EventedPLEG: false, NodeLogQuery: true}\n`, "--feature-gates=EventedPLEG=true");
    expect(config.featureGates).toMatchObject({ EventedPLEG: true, NodeLogQuery: true });
  });

  test("a relative staticPodPath is relative to the config file's folder", () => {
    expect(load(`${header}staticPodPath: manifests\n`).config.staticPodPath).toBe("/etc/bunlet/manifests");
  });

  test("YAML 1.1 scalars, as the kubelet reads its config (sigs.k8s.io/yaml)", () => {
    const { config } = load(`${header}featureGates: {EventedPLEG: off}\nreadOnlyPort: 10_255\nlogging: {verbosity: 0x3}\n`);
    expect(config).toMatchObject({ featureGates: { EventedPLEG: false }, readOnlyPort: 10255, verbosity: 3 });
  });

  test("an explicit null leaves the default", () => {
    expect(load(`${header}syncFrequency: null\nstaticPodPath:\n`).config).toMatchObject({ syncFrequencyMs: 60_000, staticPodPath: "" });
  });
});

describe("a real kubelet config loads; fields bunlet does not act on become notices", () => {
  // The shape kubeadm writes to /var/lib/kubelet/config.yaml.
  const kubeadm = `${header}authentication:
  anonymous: {enabled: false}
  webhook: {cacheTTL: 0s, enabled: true}
  x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}
authorization:
  mode: Webhook
  webhook: {cacheAuthorizedTTL: 0s, cacheUnauthorizedTTL: 0s}
cgroupDriver: systemd
clusterDNS: [10.96.0.10]
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock
cpuManagerReconcilePeriod: 0s
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
logging:
  flushFrequency: 0
  options:
    json: {infoBufferSize: "0"}
  verbosity: 0
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
`;
  test("it loads; 0s durations mean the default, as in the kubelet; one warning lists every field not acted on", () => {
    const { config, notices } = load(kubeadm);
    expect(config).toMatchObject({
      staticPodPath: "/etc/kubernetes/manifests",
      syncFrequencyMs: 60_000,
      fileCheckFrequencyMs: 20_000,
      httpCheckFrequencyMs: 20_000,
      runtimeRequestTimeoutMs: 120_000,
      containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock",
      cgroupDriver: "systemd",
      readOnlyPort: 0,
      healthzPort: 10248,
      clientCAFile: "/etc/kubernetes/pki/ca.crt",
      authenticationWebhookEnabled: true,
      authenticationWebhookCacheTTLMs: 120_000,
      anonymousAuth: false,
      authorizationMode: "Webhook",
      authorizationCacheAuthorizedTTLMs: 300_000,
    });
    expect(notices).toHaveLength(1);
    const n: ConfigNotice = notices[0];
    expect(n).toMatchObject({ level: "warn", msg: "kubelet settings accepted for compatibility but not acted on by bunlet" });
    expect(String(n.fields.settings).split(", ")).toEqual([
      "cpuManagerReconcilePeriod",
      "logging.flushFrequency",
      "logging.options",
      "memorySwap",
      "rotateCertificates",
      "streamingConnectionIdleTimeout",
      "volumeStatsAggPeriod",
    ]);
  });

  test("a kubelet gate set away from its default is listed; one left at its default behaves as asked and is not", () => {
    const { notices } = load(`${header}featureGates: {NodeLogQuery: true, ContainerCheckpoint: true}\n`);
    expect(notices).toEqual([
      { level: "warn", msg: "kubelet settings accepted for compatibility but not acted on by bunlet", fields: { settings: "featureGates.NodeLogQuery=true" } },
    ]);
  });

  test("file fields and flags land in the same one line", () => {
    const { notices } = load(`${header}failSwapOn: false\n`, "--cpu-manager-policy=none");
    expect(notices.map((x) => x.fields.settings)).toEqual(["failSwapOn, --cpu-manager-policy (cpuManagerPolicy)"]);
  });

  test("the container manager's fields are read with the kubelet's names and defaults", () => {
    const { config, notices } = load(
      `${header}cgroupRoot: /edge\ncgroupsPerQOS: true\npodPidsLimit: -5\ncpuCFSQuota: false\n` +
        `kubeReserved: {cpu: 100m, memory: 256Mi, pid: "1000"}\nsystemReserved: {memory: 1Gi}\nkubeReservedCgroup: /kube.slice\n` +
        `enforceNodeAllocatable: [pods, kube-reserved]\nqosReserved: {memory: 50%}\n`,
    );
    expect(config).toMatchObject({
      cgroupRoot: "/edge",
      cgroupsPerQOS: true,
      podPidsLimit: -1,
      cpuCFSQuota: false,
      kubeReserved: { cpu: "100m", memory: "256Mi", pid: "1000" },
      systemReserved: { memory: "1Gi" },
      kubeReservedCgroup: "/kube.slice",
      enforceNodeAllocatable: ["pods", "kube-reserved"],
      qosReserved: { memory: "50%" },
    });
    expect(notices).toEqual([]);
  });

  test("a reserved resource the kubelet cannot reserve is an error naming the field", () => {
    const err = failure(`${header}systemReserved: {nvidia.com/gpu: "1"}\n`);
    expect(err.flagOrField).toBe("systemReserved");
    expect(err.message).toContain('cannot reserve "nvidia.com/gpu" resource');
  });

  test("resolvConf is read: \"\" means no host resolver", () => {
    expect(load(`${header}resolvConf: ""\n`).config.resolvConf).toBe("");
    expect(load(`${header}resolvConf: /run/systemd/resolve/resolv.conf\n`).config.resolvConf).toBe("/run/systemd/resolve/resolv.conf");
  });
});

describe("--config-dir: drop-ins over --config, in file name order", () => {
  const files = {
    "/etc/bunlet/config.yaml": `${header}syncFrequency: 30s\nfeatureGates: {EventedPLEG: false}\nstaticPodPath: /etc/kubernetes/manifests\n`,
    "/etc/bunlet/conf.d/20-late.conf": `${header}syncFrequency: 45s\n`,
    "/etc/bunlet/conf.d/10-early.conf": `${header}syncFrequency: 10s\nfileCheckFrequency: 5s\nfeatureGates: {NodeLogQuery: true}\n`,
    "/etc/bunlet/conf.d/99-ignored.yaml": "not: even: yaml: [",
  };
  const dirEnv: ParseEnv = {
    ...envWith(files),
    readDir: (path) => {
      if (path !== "/etc/bunlet/conf.d") throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      return ["99-ignored.yaml", "20-late.conf", "10-early.conf"];
    },
  };

  test("later drop-ins win field by field; gates merge per gate; flags still win", () => {
    const r = parseArgs(["--config=/etc/bunlet/config.yaml", "--config-dir=/etc/bunlet/conf.d", "--file-check-frequency=2s"], dirEnv);
    if (r.kind !== "run") throw new Error(r.kind);
    expect(r.config).toMatchObject({ syncFrequencyMs: 45_000, fileCheckFrequencyMs: 2_000, staticPodPath: "/etc/kubernetes/manifests" });
    expect(r.config.featureGates).toMatchObject({ EventedPLEG: false, NodeLogQuery: true });
  });

  test("a drop-in's error names the drop-in; a missing directory names the flag", () => {
    const bad: ParseEnv = { ...dirEnv, readFile: (p) => (p.endsWith("20-late.conf") ? `${header}syncFrequency: soon\n` : envWith(files).readFile(p)) };
    expect(() => parseArgs(["--config-dir=/etc/bunlet/conf.d"], bad)).toThrow('bunlet: /etc/bunlet/conf.d/20-late.conf: syncFrequency: invalid duration "soon"');
    expect(() => parseArgs(["--config-dir=/nope"], dirEnv)).toThrow('bunlet: cannot read config directory "/nope": no such file or directory');
  });
});

describe("a bad config file exits 2 with one line naming the file and the field", () => {
  const cases: [string, string, string, string][] = [
    ["unknown field", `${header}staticPodDir: /x\n`, "staticPodDir", "staticPodDir: unknown field"],
    ["unknown logging field", `${header}logging: {colour: true}\n`, "logging.colour", "logging.colour: unknown field"],
    ["bad duration", `${header}syncFrequency: abc\n`, "syncFrequency", 'syncFrequency: invalid duration "abc"'],
    ["negative duration", `${header}httpCheckFrequency: -5s\n`, "httpCheckFrequency", 'httpCheckFrequency: negative duration "-5s"'],
    ["a duration must be a string", `${header}syncFrequency: 60\n`, "syncFrequency", 'syncFrequency: expected a duration string such as "20s", found number 60'],
    ["a port must be a number", `${header}readOnlyPort: "10255"\n`, "readOnlyPort", 'readOnlyPort: expected an integer, found string "10255"'],
    ["port out of range", `${header}healthzPort: 65536\n`, "healthzPort", "healthzPort: must be between 0 and 65535, inclusive, found 65536"],
    ["address not an IP", `${header}address: localhost\n`, "address", 'address: expected an IP address, found "localhost"'],
    ["podLogsDir relative", `${header}podLogsDir: logs\n`, "podLogsDir", 'podLogsDir: must be an absolute path, found "logs"'],
    ["endpoint scheme", `${header}containerRuntimeEndpoint: npipe:////./pipe/containerd\n`, "containerRuntimeEndpoint",
      'containerRuntimeEndpoint: expected unix:///path/to/socket or an absolute socket path, found "npipe:////./pipe/containerd"'],
    ["unknown gate", `${header}featureGates: {NoSuchGate: true}\n`, "featureGates", "featureGates: unrecognized feature gate: NoSuchGate"],
    ["gate not a bool", `${header}featureGates: {EventedPLEG: "yes"}\n`, "featureGates", 'featureGates: EventedPLEG: expected true or false, found string "yes"'],
    ["header values not a list", `${header}staticPodURLHeader: {A: b}\n`, "staticPodURLHeader",
      'staticPodURLHeader: header "A": expected a list of strings, found string "b"'],
    ["log format", `${header}logging: {format: xml}\n`, "logging.format", 'logging.format: unsupported log format "xml", expected "text" or "json"'],
    ["logging not an object", `${header}logging: json\n`, "logging", 'logging: expected an object, found string "json"'],
    ["wrong apiVersion", "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n", "apiVersion",
      'apiVersion: expected "kubelet.config.k8s.io/v1beta1", found string "kubelet.config.k8s.io/v1"'],
    ["wrong kind", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n", "kind",
      'kind: expected "KubeletConfiguration", found string "KubeProxyConfiguration"'],
    ["missing kind", "apiVersion: kubelet.config.k8s.io/v1beta1\n", "kind", 'kind: expected "KubeletConfiguration", found null'],
    ["empty file", "", "--config", "expected a KubeletConfiguration object, found null"],
    ["a list", "- a\n- b\n", "--config", "expected a KubeletConfiguration object, found a list"],
    ["YAML syntax", `${header}syncFrequency: [20s\n`, "--config", "not valid YAML or JSON: "],
    ["duplicate key", `${header}syncFrequency: 20s\nsyncFrequency: 30s\n`, "--config", "not valid YAML or JSON: Map keys must be unique at line 4"],
    ["a value JSON cannot hold", `${header}readOnlyPort: .inf\n`, "readOnlyPort", "readOnlyPort: json: unsupported value: +Inf"],
    ["two spellings of one gate", `${header}featureGates: {EventedPLEG: on, EventedPLEG: off}\n`, "--config", "not valid YAML or JSON: Map keys must be unique"],
  ];
  for (const [name, text, field, problem] of cases) {
    test(`${name} → ${field}`, () => {
      const err = failure(text);
      expect(err.flagOrField).toBe(field);
      expect(err.message).toStartWith(`bunlet: /etc/bunlet/config.yaml: ${problem}`);
      expect(err.message).not.toContain("\n");
    });
  }
});

describe("the kubelet API's fields (port, TLS, authentication, authorization)", () => {
  test("they are read with the kubelet's names", () => {
    const { config } = load(`${header}port: 11250
tlsCertFile: /pki/kubelet.crt
tlsPrivateKeyFile: /pki/kubelet.key
enableServer: true
enableSystemLogHandler: false
enableSystemLogQuery: true
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false, cacheTTL: 10s}
  x509: {clientCAFile: /pki/ca.crt}
authorization:
  mode: AlwaysAllow
  webhook: {cacheAuthorizedTTL: 1m, cacheUnauthorizedTTL: 5s}
`);
    expect(config).toMatchObject({
      port: 11250,
      tlsCertFile: "/pki/kubelet.crt",
      tlsPrivateKeyFile: "/pki/kubelet.key",
      enableServer: true,
      enableSystemLogHandler: false,
      enableSystemLogQuery: true,
      anonymousAuth: true,
      authenticationWebhookEnabled: false,
      authenticationWebhookCacheTTLMs: 10_000,
      clientCAFile: "/pki/ca.crt",
      authorizationMode: "AlwaysAllow",
      authorizationCacheAuthorizedTTLMs: 60_000,
      authorizationCacheUnauthorizedTTLMs: 5_000,
    });
  });

  const bad: [string, string, RegExp][] = [
    ["an unknown nested field", "authentication:\n  x509: {clientCAFil: /ca.crt}\n", /authentication: x509\.clientCAFil: unknown field/],
    ["an unknown authorization mode", "authorization:\n  mode: Node\n", /authorization: mode: expected Webhook or AlwaysAllow, found "Node"/],
    ["a port out of range", "port: 70000\n", /port: expected a port between 1 and 65535, found 70000/],
    ["a bool of the wrong type", "authentication:\n  anonymous: {enabled: \"yes\"}\n", /authentication: anonymous\.enabled: expected true or false/],
  ];
  for (const [name, yaml, want] of bad) {
    test(`${name} is an error naming the field`, () => expect(() => load(`${header}${yaml}`)).toThrow(want));
  }
});
