import { describe, expect, test } from "bun:test";
import { ConfigHashAnnotationKey, type Pod } from "../../../src/api/index.ts";
import { decodeManifest, decodeManifestList, maxConfigLength } from "../../../src/podconfig/decode.ts";
import { ManifestError } from "../../../src/podconfig/errors.ts";

const file = { source: "/etc/bunlet/manifests/web.yaml", nodeName: "Node-A", isFile: true };
const url = { source: "http://127.0.0.1:9999/pods", nodeName: "Node-A", isFile: false };

const webYaml = `
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: { app: web }
spec:
  containers:
  - name: web
    image: docker.io/library/busybox:1.36
    command: ["httpd", "-f", "-p", "8080"]
    ports:
    - containerPort: 8080
    readinessProbe:
      httpGet: { port: 8080 }
`;

function decodeError(fn: () => unknown): ManifestError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error("expected a ManifestError, decoding succeeded");
}

describe("decodeManifest applies the apiserver's defaults", () => {
  const pod = decodeManifest(webYaml, file);

  test("pod-level defaults", () => {
    expect(pod.spec).toMatchObject({
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
      enableServiceLinks: true,
    });
  });

  test("container defaults: pull policy, termination message, port protocol", () => {
    expect(pod.spec.containers[0]).toMatchObject({
      imagePullPolicy: "IfNotPresent",
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      ports: [{ containerPort: 8080, protocol: "TCP" }],
    });
  });

  test("probe defaults, including the httpGet path and scheme", () => {
    expect(pod.spec.containers[0].readinessProbe).toEqual({
      httpGet: { port: 8080, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  test("requests default to limits, host network ports default hostPort, volumes default to emptyDir", () => {
    const p = decodeManifest(
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {
          hostNetwork: true,
          volumes: [{ name: "scratch" }, { name: "host", hostPath: { path: "/tmp" } }],
          containers: [
            {
              name: "c",
              image: "busybox",
              ports: [{ containerPort: 9000 }],
              resources: { limits: { cpu: "1", memory: "64Mi" }, requests: { cpu: "100m" } },
              env: [{ name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
              lifecycle: { preStop: { httpGet: { port: 9000 } } },
            },
          ],
        },
      }),
      file,
    );
    const c = p.spec.containers[0];
    expect(c.resources?.requests).toEqual({ cpu: "100m", memory: "64Mi" });
    expect(c.ports).toEqual([{ containerPort: 9000, hostPort: 9000, protocol: "TCP" }]);
    expect(c.env?.[0].valueFrom?.fieldRef?.apiVersion).toBe("v1");
    expect(c.lifecycle?.preStop?.httpGet).toEqual({ port: 9000, path: "/", scheme: "HTTP" });
    expect(p.spec.volumes).toEqual([
      { name: "scratch", emptyDir: {} },
      { name: "host", hostPath: { path: "/tmp", type: "" } },
    ]);
  });

  test.each([
    ["busybox", "Always"],
    ["busybox:latest", "Always"],
    ["registry:5000/busybox", "Always"],
    ["registry:5000/busybox:1.36", "IfNotPresent"],
    ["busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"],
    ["busybox:1.36@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"],
  ])("image %p pulls %p by default", (image, policy) => {
    const p = decodeManifest(webYaml.replace("docker.io/library/busybox:1.36", image), file);
    expect(p.spec.containers[0].imagePullPolicy).toBe(policy as "Always");
  });

  test("an explicit pull policy is kept", () => {
    const p = decodeManifest(webYaml.replace("    command:", "    imagePullPolicy: Never\n    command:"), file);
    expect(p.spec.containers[0].imagePullPolicy).toBe("Never");
  });

  test("the pull policy follows the tag as ParseImageName reads it", () => {
    const policy = (image: string) => decodeManifest(webYaml.replace("docker.io/library/busybox:1.36", image), file).spec.containers[0].imagePullPolicy;
    expect(policy("localhost:5000/a/b")).toBe("Always");
    expect(policy("localhost:5000/a/b:v2")).toBe("IfNotPresent");
    expect(policy("a@sha256:abc")).toBe("IfNotPresent");
  });
});

describe("decodeManifest applies the kubelet's static-pod defaults", () => {
  const pod = decodeManifest(webYaml, file);

  test("name suffixed with the lowercased node name, default namespace, node binding, Pending", () => {
    expect(pod.metadata.name).toBe("web-node-a");
    expect(pod.metadata.namespace).toBe("default");
    expect(pod.spec.nodeName).toBe("Node-A");
    expect(pod.status).toEqual({ phase: "Pending" });
  });

  test("the config hash is the UID, a 32-hex-character content hash", () => {
    expect(pod.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod.metadata.annotations).toEqual({ [ConfigHashAnnotationKey]: pod.metadata.uid! });
  });

  test("file pods tolerate NoExecute taints, once; URL pods do not get the toleration", () => {
    expect(pod.spec.tolerations).toEqual([{ operator: "Exists", effect: "NoExecute" }]);
    const tolerating = webYaml.replace("spec:\n", "spec:\n  tolerations: [{operator: Exists, effect: NoExecute}]\n");
    expect(decodeManifest(tolerating, file).spec.tolerations).toEqual([{ operator: "Exists", effect: "NoExecute" }]);
    expect(decodeManifest(webYaml, url).spec.tolerations).toBeUndefined();
  });

  test("an explicit namespace and status other than the phase are kept", () => {
    const p = decodeManifest(webYaml.replace("  name: web\n", "  name: web\n  namespace: kube-system\n") + "status: { message: hi }\n", file);
    expect(p.metadata.namespace).toBe("kube-system");
    expect(p.status).toEqual({ message: "hi", phase: "Pending" });
  });
});

describe("static pod UIDs are deterministic", () => {
  const uid = (data: string, origin = file) => decodeManifest(data, origin).metadata.uid;

  test("the same content at the same path on the same node gives the same UID", () => {
    expect(uid(webYaml)).toBe(uid(webYaml));
  });

  test("the same content as JSON, or with keys reordered, gives the same UID", () => {
    const asJson = JSON.stringify(decodeManifestSource(webYaml));
    expect(uid(asJson)).toBe(uid(webYaml));
  });

  test("a different node, path, or content gives a different UID", () => {
    const base = uid(webYaml);
    expect(uid(webYaml, { ...file, nodeName: "node-b" })).not.toBe(base);
    expect(uid(webYaml, { ...file, source: "/etc/bunlet/manifests/web2.yaml" })).not.toBe(base);
    expect(uid(webYaml.replace("8080\"]", "8081\"]"))).not.toBe(base);
  });

  test("a URL pod's UID depends on the URL, not the node", () => {
    expect(uid(webYaml, url)).toBe(uid(webYaml, { ...url, nodeName: "other" }));
    expect(uid(webYaml, url)).not.toBe(uid(webYaml, { ...url, source: "http://127.0.0.1:9999/other" }));
    expect(uid(webYaml, url)).not.toBe(uid(webYaml));
  });

  test("an explicit metadata.uid wins and becomes the config hash", () => {
    const p = decodeManifest(webYaml.replace("  name: web\n", "  name: web\n  uid: my-uid\n"), file);
    expect(p.metadata.uid).toBe("my-uid");
    expect(p.metadata.annotations?.[ConfigHashAnnotationKey]).toBe("my-uid");
  });
});

/** The manifest as a plain object with its keys reversed, to show key order does not matter. */
function decodeManifestSource(yaml: string): unknown {
  const reverse = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reverse)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reverse(x)]))
        : v;
  return reverse(Bun.YAML.parse(yaml));
}

describe("manifest framing", () => {
  test("a multi-document YAML yields its first document only", () => {
    const p = decodeManifest(`${webYaml}---\napiVersion: v1\nkind: Pod\nmetadata: { name: second }\n`, file);
    expect(p.metadata.name).toBe("web-node-a");
  });

  test("bytes and strings decode alike", () => {
    expect(decodeManifest(new TextEncoder().encode(webYaml), file)).toEqual(decodeManifest(webYaml, file));
  });

  test("invalid UTF-8 is refused, as the kubelet's decoder (go-yaml) refuses it, not turned into U+FFFD", () => {
    // A container name with a Latin-1 byte: TextDecoder would read it as "ma\uFFFDn" and run it.
    const bytes = Buffer.from(webYaml.replace("- name: web", "- name: ma\u00e9n"), "latin1");
    const err = decodeError(() => decodeManifest(bytes, file));
    expect(err.code).toBe("Syntax");
    expect(err.message).toMatch(new RegExp(`^${file.source}: cannot parse as YAML or JSON: invalid (trailing|leading) UTF-8 octet at byte \\d+$`));
    const json = Buffer.concat([Buffer.from('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w'), Buffer.from([0xff]), Buffer.from('"}}')]);
    expect(decodeError(() => decodeManifestList(json, url)).message).toBe(`${url.source}: cannot parse as YAML or JSON: invalid leading UTF-8 octet at byte 53`);
  });

  test("more than 10 MiB is refused before parsing", () => {
    const big = webYaml + `# ${"x".repeat(maxConfigLength)}\n`;
    const err = decodeError(() => decodeManifest(big, file));
    expect(err.code).toBe("TooLarge");
    expect(err.source).toBe(file.source);
  });

  test("exactly 10 MiB is accepted", () => {
    const padding = maxConfigLength - Buffer.byteLength(webYaml) - 3;
    const atLimit = `${webYaml}# ${"x".repeat(padding)}\n`;
    expect(Buffer.byteLength(atLimit)).toBe(maxConfigLength);
    expect(decodeManifest(atLimit, file).metadata.name).toBe("web-node-a");
  });

  test("a PodList is decoded for URLs, and one bad item rejects the whole list", () => {
    const list = (second: object) =>
      JSON.stringify({
        apiVersion: "v1",
        kind: "PodList",
        items: [
          { metadata: { name: "foo", uid: "111" }, spec: { containers: [{ name: "1", image: "foo" }] } },
          second,
        ],
      });
    const pods: Pod[] = decodeManifestList(list({ metadata: { name: "bar", uid: "222" }, spec: { containers: [{ name: "2", image: "bar:bartag" }] } }), url);
    expect(pods.map((p) => [p.metadata.name, p.metadata.namespace, p.metadata.uid, p.spec.containers[0].imagePullPolicy])).toEqual([
      ["foo-node-a", "default", "111", "Always"],
      ["bar-node-a", "default", "222", "IfNotPresent"],
    ]);
    const err = decodeError(() => decodeManifestList(list({ metadata: { name: "bar" }, spec: { containers: [{ name: "2" }] } }), url));
    expect(err.message).toBe(`${url.source}: items[1].spec.containers[0].image: Required value`);
  });

  test("a single Pod from a URL decodes to a list of one", () => {
    expect(decodeManifestList(webYaml, url).map((p) => p.metadata.name)).toEqual(["web-node-a"]);
  });

  test("a PodList in a file is refused: one Pod per file", () => {
    const err = decodeError(() => decodeManifest('{"apiVersion":"v1","kind":"PodList","items":[]}', file));
    expect(err.message).toBe(`${file.source}: kind: Unsupported value: "PodList": supported values: "Pod"`);
  });
});

describe("manifests are read as the kubelet reads them (sigs.k8s.io/yaml, YAML 1.1 scalars)", () => {
  const manifest = `
apiVersion: v1
kind: Pod
metadata:
  name: yaml11
  labels: {on: "x", version: 1.10}
spec:
  hostNetwork: yes
  volumes:
  - name: config
    hostPath: {path: /etc/app}
  - name: scratch
    emptyDir: {sizeLimit: 0.5Gi}
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, 1:20]
    resources:
      limits: {cpu: 0.25, memory: 64Mi}
    securityContext: {runAsUser: 0x3e8, privileged: off}
`;

  test("yes/no/on/off are booleans, 0x3e8 is hex, 1:20 and timestamps stay strings, keys stay strings", () => {
    const pod = decodeManifest(manifest.replace("version: 1.10", 'version: "1.10"'), file);
    expect(pod.spec.hostNetwork).toBe(true);
    expect(pod.metadata.labels).toEqual({ true: "x", version: "1.10" });
    const c = pod.spec.containers[0];
    expect(c.command).toEqual(["sleep", "1:20"]);
    expect(c.securityContext).toMatchObject({ runAsUser: 1000, privileged: false });
    expect(c.resources).toEqual({ limits: { cpu: "250m", memory: "64Mi" }, requests: { cpu: "250m", memory: "64Mi" } });
    expect(pod.spec.volumes?.[1].emptyDir?.sizeLimit).toBe("512Mi");
  });

  test("an unquoted label value that YAML reads as a number is refused, as the kubelet refuses it", () => {
    expect(decodeError(() => decodeManifest(manifest, file)).message).toBe(
      "/etc/bunlet/manifests/web.yaml: metadata.labels: Invalid value: object: must be a map of strings",
    );
  });

  test("0644 is octal: defaultMode 420", () => {
    const pod = decodeManifest(
      `apiVersion: v1\nkind: Pod\nmetadata: {name: m}\nspec:\n  volumes: [{name: c, downwardAPI: {defaultMode: 0644}}]\n  containers: [{name: c, image: busybox:1.36}]\n`,
      { ...file, source: "/etc/bunlet/manifests/m.yaml" },
    ).spec.volumes;
    expect(pod?.[0].downwardAPI).toMatchObject({ defaultMode: 420 });
  });
});
