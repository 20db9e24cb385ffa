import { describe, expect, test } from "bun:test";
import { decodeManifest, decodeManifestList } from "../../../src/podconfig/decode.ts";
import { ManifestError, type ManifestErrorCode } from "../../../src/podconfig/errors.ts";

const source = "examples/web.yaml";
const origin = { source, nodeName: "node-a", isFile: true };

type Json = Record<string, any>;

/** A valid manifest, edited by the case. */
function manifest(edit: (pod: Json) => void = () => {}): string {
  const pod: Json = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: {
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [
        {
          name: "web",
          image: "docker.io/library/busybox:1.36",
          ports: [{ name: "http", containerPort: 8080 }],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
      ],
    },
  };
  edit(pod);
  return JSON.stringify(pod);
}

function errorOf(data: string): ManifestError {
  try {
    decodeManifest(data, origin);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error("expected a ManifestError, the manifest decoded");
}

const c0 = (pod: Json) => pod.spec.containers[0];

/** [behaviour, edit, code, exact message after "<source>: "] */
const invalid: [string, (pod: Json) => void, ManifestErrorCode, string][] = [
  ["an image is required", (p) => delete c0(p).image, "Required", "spec.containers[0].image: Required value"],
  ["a container name is required", (p) => (c0(p).name = ""), "Required", "spec.containers[0].name: Required value"],
  [
    "container names are DNS-1123 labels",
    (p) => (c0(p).name = "_INVALID_"),
    "Invalid",
    `spec.containers[0].name: Invalid value: "_INVALID_": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  ],
  [
    "container names are unique across init and regular containers",
    (p) => (p.spec.initContainers = [{ name: "web", image: "busybox:1.36" }]),
    "Duplicate",
    'spec.containers[0].name: Duplicate value: "web"',
  ],
  ["at least one container is required", (p) => (p.spec.containers = []), "Required", "spec.containers: Required value"],
  [
    "the restart policy is one of Always, OnFailure, Never",
    (p) => (p.spec.restartPolicy = "Sometimes"),
    "NotSupported",
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
  ],
  [
    "container ports are in range",
    (p) => (c0(p).ports[0].containerPort = 70000),
    "Invalid",
    "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
  ],
  [
    "host ports are in range",
    (p) => (c0(p).ports[0].hostPort = 65536),
    "Invalid",
    "spec.containers[0].ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
  ],
  [
    "port names are unique within a container",
    (p) => c0(p).ports.push({ name: "http", containerPort: 8081 }),
    "Duplicate",
    'spec.containers[0].ports[1].name: Duplicate value: "http"',
  ],
  [
    "the port protocol is TCP, UDP or SCTP",
    (p) => (c0(p).ports[0].protocol = "ICMP"),
    "NotSupported",
    'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
  ],
  [
    "volume names are unique",
    (p) => p.spec.volumes.push({ name: "data", emptyDir: {} }),
    "Duplicate",
    'spec.volumes[1].name: Duplicate value: "data"',
  ],
  [
    "a volume has one type only",
    (p) => (p.spec.volumes[0].hostPath = { path: "/tmp" }),
    "Forbidden",
    "spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type",
  ],
  [
    "a volume mount names an existing volume",
    (p) => (c0(p).volumeMounts[0].name = "missing"),
    "NotFound",
    'spec.containers[0].volumeMounts[0].name: Not found: "missing"',
  ],
  // validateLocalDescendingPath (CVE-2017-1002101): the apiserver's field path has no mount index.
  [
    "a subPath must be relative",
    (p) => (c0(p).volumeMounts[0].subPath = "/etc"),
    "Invalid",
    'spec.containers[0].volumeMounts.subPath: Invalid value: "/etc": must be a relative path',
  ],
  [
    "a subPath must not step up with ..",
    (p) => (c0(p).volumeMounts[0].subPath = "a/../../../etc"),
    "Invalid",
    `spec.containers[0].volumeMounts.subPath: Invalid value: "a/../../../etc": must not contain '..'`,
  ],
  [
    "an init container's subPath is checked too",
    (p) => (p.spec.initContainers = [{ name: "init", image: "busybox:1.36", volumeMounts: [{ name: "data", mountPath: "/d", subPath: ".." }] }]),
    "Invalid",
    `spec.initContainers[0].volumeMounts.subPath: Invalid value: "..": must not contain '..'`,
  ],
  [
    "a subPathExpr must not step up with ..",
    (p) => (c0(p).volumeMounts[0].subPathExpr = "$(POD_NAME)/.."),
    "Invalid",
    `spec.containers[0].volumeMounts.subPathExpr: Invalid value: "$(POD_NAME)/..": must not contain '..'`,
  ],
  [
    "a subPathExpr must be relative",
    (p) => (c0(p).volumeMounts[0].subPathExpr = "/$(POD_NAME)"),
    "Invalid",
    `spec.containers[0].volumeMounts.subPathExpr: Invalid value: "/$(POD_NAME)": must be a relative path`,
  ],
  [
    "subPath and subPathExpr are mutually exclusive",
    (p) => Object.assign(c0(p).volumeMounts[0], { subPath: "a", subPathExpr: "b" }),
    "Invalid",
    `spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "b": subPathExpr and subPath are mutually exclusive`,
  ],
  [
    "the pull policy is Always, IfNotPresent or Never",
    (p) => (c0(p).imagePullPolicy = "Sometimes"),
    "NotSupported",
    'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
  ],
  [
    "a liveness probe needs successThreshold 1",
    (p) => (c0(p).livenessProbe = { tcpSocket: { port: 8080 }, successThreshold: 2 }),
    "Invalid",
    "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
  ],
  [
    "a probe needs a handler",
    (p) => (c0(p).readinessProbe = { periodSeconds: 5 }),
    "Required",
    "spec.containers[0].readinessProbe: Required value: must specify a handler type",
  ],
  [
    "a probe port may be a named port",
    (p) => (c0(p).readinessProbe = { httpGet: { port: "Not_A_Name" } }),
    "Invalid",
    'spec.containers[0].readinessProbe.httpGet.port: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
  ],
  [
    "pod names become DNS-1123 subdomains",
    (p) => (p.metadata.name = "Web"),
    "Invalid",
    `metadata.name: Invalid value: "Web-node-a": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ],
  [
    "namespaces are DNS-1123 labels",
    (p) => (p.metadata.namespace = "kube.system"),
    "Invalid",
    `metadata.namespace: Invalid value: "kube.system": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  ],
  [
    "hostnameOverride is a DNS subdomain",
    (p) => (p.spec.hostnameOverride = "Not-RFC1123"),
    "Invalid",
    `spec.hostnameOverride: Invalid value: "Not-RFC1123": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ],
  [
    "hostnameOverride is not allowed with setHostnameAsFQDN",
    (p) => Object.assign(p.spec, { hostnameOverride: "override-host", setHostnameAsFQDN: true }),
    "Forbidden",
    "spec.hostnameOverride: Forbidden: may not be specified when setHostnameAsFQDN is true",
  ],
  [
    "hostnameOverride is not allowed with hostNetwork",
    (p) => Object.assign(p.spec, { hostnameOverride: "override-host", hostNetwork: true }),
    "Forbidden",
    "spec.hostnameOverride: Forbidden: may not be specified when hostNetwork is true",
  ],
  ["hostnameOverride is at most 64 characters", (p) => (p.spec.hostnameOverride = "a".repeat(65)), "TooLong", "spec.hostnameOverride: Too long: may not be more than 64 bytes"],
  ["a static pod needs a name", (p) => delete p.metadata.name, "Required", "metadata.name: Required value: a static pod needs a name"],
  [
    "label values are valid",
    (p) => (p.metadata.labels = { app: "-bad-" }),
    "Invalid",
    `metadata.labels: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  ],
  [
    "the DNS policy is a known one",
    (p) => (p.spec.dnsPolicy = "Google"),
    "NotSupported",
    'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"',
  ],
  [
    "with host networking a container port equals its host port",
    (p) => ((p.spec.hostNetwork = true), (c0(p).ports[0].hostPort = 80)),
    "Invalid",
    "spec.containers[0].ports[0].containerPort: Invalid value: 8080: must match `hostPort` when `hostNetwork` is true",
  ],
  [
    "init containers without restartPolicy Always have no probes",
    (p) => (p.spec.initContainers = [{ name: "init", image: "busybox:1.36", readinessProbe: { exec: { command: ["true"] } } }]),
    "Forbidden",
    "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
  ],
  [
    "a regular container's own restartPolicy is one of Always, Never, OnFailure (ContainerRestartRules)",
    (p) => (c0(p).restartPolicy = "Sometimes"),
    "NotSupported",
    'spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
  ],
  [
    "restart rules need a container restartPolicy",
    (p) => (c0(p).restartPolicyRules = [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }]),
    "Required",
    "spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used",
  ],
  [
    "a restart rule's action is Restart (RestartAllContainers needs a gate that is off)",
    (p) => Object.assign(c0(p), { restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] }),
    "NotSupported",
    'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported values: "Restart"',
  ],
  [
    "a restart rule needs exitCodes",
    (p) => Object.assign(c0(p), { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart" }] }),
    "Required",
    "spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified",
  ],
  [
    "a restart rule's operator is In or NotIn",
    (p) => Object.assign(c0(p), { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "Is", values: [1] } }] }),
    "NotSupported",
    'spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Is": supported values: "In", "NotIn"',
  ],
  [
    "a sidecar has no restart rules",
    (p) => (p.spec.initContainers = [{ name: "side", image: "busybox:1.36", restartPolicy: "Always", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }] }]),
    "Forbidden",
    "spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always",
  ],
  [
    "ephemeral containers cannot be set on create",
    (p) => (p.spec.ephemeralContainers = [{ name: "debug", image: "busybox:1.36" }]),
    "Forbidden",
    "spec.ephemeralContainers: Forbidden: cannot be set on create",
  ],
  [
    "a field of the wrong JSON type is named",
    (p) => (c0(p).ports[0].containerPort = "8080"),
    "TypeInvalid",
    "spec.containers[0].ports[0].containerPort: Invalid value: string: must be an integer",
  ],
  [
    "containers must be a list",
    (p) => (p.spec.containers = { name: "web" }),
    "TypeInvalid",
    "spec.containers: Invalid value: object: must be an array",
  ],
  ["apiVersion is required", (p) => delete p.apiVersion, "Required", "apiVersion: Required value"],
  ["kind is required", (p) => delete p.kind, "Required", "kind: Required value"],
  [
    "only v1 Pods are manifests",
    (p) => (p.apiVersion = "apps/v1"),
    "NotSupported",
    'apiVersion: Unsupported value: "apps/v1": supported values: "v1"',
  ],
];

describe("validation errors name the source, the field path and what is wrong", () => {
  for (const [behaviour, edit, code, message] of invalid) {
    test(behaviour, () => {
      const err = errorOf(manifest(edit));
      expect(err.message).toBe(`${source}: ${message}`);
      expect(err.code).toBe(code);
      expect(err.source).toBe(source);
      expect(`${err.field}: ${err.detail}`).toBe(message);
    });
  }

  test("the valid base manifest decodes", () => {
    expect(decodeManifest(manifest(), origin).metadata.name).toBe("web-node-a");
  });

  test("relative subPaths and subPathExprs without .. are valid (a dot inside a name is no backstep)", () => {
    const pod = decodeManifest(
      manifest((p) => {
        c0(p).volumeMounts = [
          { name: "data", mountPath: "/a", subPath: "a/b..c/./d" },
          { name: "data", mountPath: "/b", subPathExpr: "logs/$(POD_NAME)" },
        ];
      }),
      origin,
    );
    expect(pod.spec.containers[0].volumeMounts?.map((m) => m.subPath ?? m.subPathExpr)).toEqual(["a/b..c/./d", "logs/$(POD_NAME)"]);
  });

  test("an absolute subPath with .. gets both errors", () => {
    const err = errorOf(manifest((p) => (c0(p).volumeMounts[0].subPath = "/../x")));
    expect(err.message).toBe(
      `${source}: spec.containers[0].volumeMounts.subPath: Invalid value: "/../x": must be a relative path; spec.containers[0].volumeMounts.subPath: Invalid value: "/../x": must not contain '..'`,
    );
  });

  test("container restart policies and rules decode (ContainerRestartRules): regular and init containers", () => {
    const pod = decodeManifest(
      manifest((p) => {
        Object.assign(c0(p), { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] });
        p.spec.restartPolicy = "Never";
        p.spec.initContainers = [{ name: "init", image: "busybox:1.36", restartPolicy: "OnFailure" }];
      }),
      origin,
    );
    expect(pod.spec.containers[0]!.restartPolicyRules).toEqual([{ action: "Restart", exitCodes: { operator: "In", values: [42] } }]);
    expect(pod.spec.initContainers![0]!.restartPolicy).toBe("OnFailure");
  });

  test("several problems are all reported, the first one in field/detail", () => {
    const err = errorOf(manifest((p) => (delete c0(p).image, (p.spec.restartPolicy = "Sometimes"))));
    expect(err.causes.map((c) => c.field)).toEqual(["spec.containers[0].image", "spec.restartPolicy"]);
    expect(err.field).toBe("spec.containers[0].image");
    expect(err.message).toBe(
      `${source}: spec.containers[0].image: Required value; spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`,
    );
  });

  test("null fields count as unset, as Go decodes them", () => {
    const pod = decodeManifest(manifest((p) => ((p.metadata.labels = null), (p.spec.restartPolicy = null))), origin);
    expect(pod.metadata.labels).toBeUndefined();
    expect(pod.spec.restartPolicy).toBe("Always");
  });
});

describe("manifests that do not parse", () => {
  test.each([
    ["an empty file", "", "manifest is empty"],
    ["a comment only", "# nothing\n", "manifest is empty"],
    ["broken YAML", "apiVersion: v1\nkind: [Pod\n", "cannot parse as YAML or JSON:"],
    ["duplicate keys", '{"apiVersion":"v1","apiVersion":"v1"}', "cannot parse as YAML or JSON: Map keys must be unique"],
    ["a list at the top", "- 1\n- 2\n", "Invalid value: array: must be an object"],
  ])("%s", (_name, data, detail) => {
    const err = errorOf(data);
    expect(err.field).toBe("");
    expect(err.message.startsWith(`${source}: ${detail}`)).toBe(true);
  });
});

describe("a static pod may not reference API objects", () => {
  const forbidden: [string, (pod: Json) => void, string][] = [
    ["a service account", (p) => (p.spec.serviceAccountName = "default"), "spec.serviceAccountName: Forbidden: static pods may not reference serviceaccounts"],
    ["an image pull secret", (p) => (p.spec.imagePullSecrets = [{ name: "creds" }]), "spec.imagePullSecrets: Forbidden: static pods may not reference secrets"],
    [
      "a secret volume",
      (p) => (p.spec.volumes[0] = { name: "data", secret: { secretName: "s" } }),
      "spec.volumes[0].secret: Forbidden: static pods may not reference secrets",
    ],
    [
      "a secret in an env var",
      (p) => (c0(p).env = [{ name: "PW", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }]),
      "spec.containers[0].env[0].valueFrom.secretKeyRef: Forbidden: static pods may not reference secrets",
    ],
    [
      "a config map volume",
      (p) => (p.spec.volumes[0] = { name: "data", configMap: { name: "cm" } }),
      "spec.volumes[0].configMap: Forbidden: static pods may not reference configmaps",
    ],
    [
      "a config map in envFrom",
      (p) => (c0(p).envFrom = [{ configMapRef: { name: "cm" } }]),
      "spec.containers[0].envFrom[0].configMapRef: Forbidden: static pods may not reference configmaps",
    ],
    [
      "a service account token",
      (p) => (p.spec.volumes[0] = { name: "data", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }),
      "spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: static pods may not reference serviceaccounts (via projected volumes)",
    ],
    [
      "a persistent volume claim",
      (p) => (p.spec.volumes[0] = { name: "data", persistentVolumeClaim: { claimName: "c" } }),
      "spec.volumes[0].persistentVolumeClaim: Forbidden: static pods may not reference persistentvolumeclaims",
    ],
    [
      "an ephemeral volume",
      (p) => (p.spec.volumes[0] = { name: "data", ephemeral: { volumeClaimTemplate: {} } }),
      "spec.volumes[0].ephemeral: Forbidden: static pods may not reference persistentvolumeclaims (via ephemeral volumes)",
    ],
    ["a resource claim", (p) => (p.spec.resourceClaims = [{ name: "gpu" }]), "spec.resourceClaims: Forbidden: static pods may not reference resourceclaims"],
  ];
  for (const [what, edit, message] of forbidden) {
    test(`referencing ${what} is refused`, () => {
      const err = errorOf(manifest(edit));
      expect(err.code).toBe("Forbidden");
      expect(err.message).toBe(`${source}: ${message}`);
    });
  }

  test("host paths, empty dirs and downward API projections are fine", () => {
    const pod = decodeManifest(
      manifest((p) => {
        p.spec.volumes = [
          { name: "data", hostPath: { path: "/var/lib/data", type: "DirectoryOrCreate" } },
          { name: "tmp", emptyDir: {} },
          { name: "info", projected: { sources: [{ downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
        ];
      }),
      origin,
    );
    expect(pod.spec.volumes?.map((v) => v.name)).toEqual(["data", "tmp", "info"]);
  });

  test("pods from a URL are held to the same rule", () => {
    expect(() => decodeManifestList(manifest((p) => (p.spec.serviceAccountName = "x")), { ...origin, isFile: false })).toThrow(
      ManifestError,
    );
  });
});

describe("resource quantities are decoded as the apiserver decodes them", () => {
  const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const resources = (r: Json) => (p: Json) => (c0(p).resources = r);
  const env = (ref: Json) => (p: Json) => (c0(p).env = [{ name: "V", valueFrom: { resourceFieldRef: ref } }]);

  test.each([
    ["a malformed memory limit", resources({ limits: { memory: "64MB" } }), `spec.containers[0].resources.limits[memory]: Invalid value: "64MB": ${formatWrong}`],
    ["a word for a cpu request", resources({ requests: { cpu: "lots" } }), `spec.containers[0].resources.requests[cpu]: Invalid value: "lots": ${formatWrong}`],
    ["an unknown suffix", resources({ limits: { memory: "1K" } }), `spec.containers[0].resources.limits[memory]: Invalid value: "1K": unable to parse quantity's suffix`],
    ["a malformed divisor", env({ resource: "limits.memory", divisor: "1 Mi" }), `spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "1 Mi": ${formatWrong}`],
    ["a malformed emptyDir size", (p: Json) => (p.spec.volumes[0].emptyDir = { sizeLimit: "1GB" }), `spec.volumes[0].emptyDir.sizeLimit: Invalid value: "1GB": ${formatWrong}`],
    [
      "a request above its limit",
      resources({ requests: { cpu: "2" }, limits: { cpu: "1" } }),
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ],
    [
      "a divisor other than 1m or 1 for cpu",
      env({ resource: "requests.cpu", divisor: "100m" }),
      `spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "requests.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
    ],
    [
      "a memory divisor that is not a unit",
      env({ resource: "limits.memory", divisor: "2Mi" }),
      `spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`,
    ],
    [
      "a resource the downward API does not know",
      env({ resource: "limits.gpu" }),
      'spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"',
    ],
    [
      "an extended resource requested without a limit",
      resources({ requests: { "example.com/gpu": "1" } }),
      "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    ],
  ])("%s is refused at decode time", (_name, edit, message) => {
    const err = errorOf(manifest(edit));
    expect(err.message).toBe(`${source}: ${message}`);
  });

  test("every malformed quantity and every other problem is reported at once", () => {
    const err = errorOf(
      manifest((p) => {
        c0(p).resources = { limits: { memory: "64MB" }, requests: { cpu: "lots" } };
        delete c0(p).image;
      }),
    );
    expect(err.causes.map((c) => `${c.field}: ${c.detail.split(":")[0]}`)).toEqual([
      "spec.containers[0].resources.limits[memory]: Invalid value",
      "spec.containers[0].resources.requests[cpu]: Invalid value",
      "spec.containers[0].image: Required value",
    ]);
    expect(err.code).toBe("Invalid");
  });

  test("negative, fractional extended and unknown resources, with the requests defaulted from limits", () => {
    const fields = (r: Json) => errorOf(manifest(resources(r))).causes.map((c) => `${c.field}: ${c.detail}`);
    expect(fields({ limits: { cpu: "-1" } })).toEqual([
      'spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(fields({ limits: { "example.com/gpu": "500m" } })).toEqual([
      'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
      'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
    ]);
    expect(fields({ limits: { gpu: "1" } })).toEqual([
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
    ]);
    expect(fields({ limits: { "hugepages-2Mi": "3Mi" } })).toEqual([
      'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
      'spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
      "spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
    ]);
  });

  test("quantities are kept in their canonical form, numbers included", () => {
    const pod = decodeManifest(
      manifest((p) => {
        c0(p).resources = { limits: { cpu: 0.5, memory: "1024Mi", "ephemeral-storage": 1e9 }, requests: { cpu: "500m", memory: null } };
        c0(p).env = [{ name: "V", valueFrom: { resourceFieldRef: { resource: "requests.cpu", divisor: "0.001" } } }];
        p.spec.volumes[0].emptyDir = { sizeLimit: " 1.5Gi " };
      }),
      origin,
    );
    expect(pod.spec.containers[0].resources).toEqual({
      limits: { cpu: "500m", memory: "1Gi", "ephemeral-storage": "1G" },
      requests: { cpu: "500m", memory: "0", "ephemeral-storage": "1G" },
    });
    expect(pod.spec.containers[0].env?.[0].valueFrom?.resourceFieldRef?.divisor).toBe("1m");
    expect(pod.spec.volumes?.[0].emptyDir?.sizeLimit).toBe("1536Mi");
  });
});
