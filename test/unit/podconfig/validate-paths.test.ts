// The apiserver's path and propagation rules (issue 23 item 9), with its field paths and words:
// a static pod may not reach outside what it was given through `..`, absolute item paths or
// Bidirectional propagation from an unprivileged container.
import { describe, expect, test } from "bun:test";
import { decodeManifest } from "../../../src/podconfig/decode.ts";
import { ManifestError, type FieldError } from "../../../src/podconfig/errors.ts";

const origin = { source: "/etc/kubernetes/manifests/web.yaml", nodeName: "node-a", isFile: true };
type Json = Record<string, any>;

function manifest(edit: (pod: Json) => void): string {
  const pod: Json = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: {
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [{ name: "web", image: "busybox:1.36", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
    },
  };
  edit(pod);
  return JSON.stringify(pod);
}

function causesOf(edit: (pod: Json) => void): FieldError[] {
  try {
    decodeManifest(manifest(edit), origin);
  } catch (err) {
    if (err instanceof ManifestError) return [...err.causes];
    throw err;
  }
  throw new Error("expected a ManifestError, the manifest decoded");
}

const volume = (source: Json) => (p: Json) => (p.spec.volumes = [{ name: "data", ...source }]);
const downward = (path: string) => ({ downwardAPI: { items: [{ path, fieldRef: { fieldPath: "metadata.name" } }] } });

const refused: [string, (pod: Json) => void, Partial<FieldError>][] = [
  [
    "a hostPath with '..' (validatePathNoBacksteps)",
    volume({ hostPath: { path: "/var/log/../../etc" } }),
    { code: "Invalid", field: "spec.volumes[0].hostPath.path", detail: `Invalid value: "/var/log/../../etc": must not contain '..'` },
  ],
  [
    "a downwardAPI item path with '..' (reported at downwardAPI.path, as the apiserver does)",
    volume(downward("../../escape")),
    { code: "Invalid", field: "spec.volumes[0].downwardAPI.path", detail: `Invalid value: "../../escape": must not contain '..'` },
  ],
  [
    "an absolute downwardAPI item path",
    volume(downward("/etc/passwd")),
    { code: "Invalid", field: "spec.volumes[0].downwardAPI.path", detail: `Invalid value: "/etc/passwd": must be a relative path` },
  ],
  [
    "a downwardAPI item path starting with '..' (the AtomicWriter's ..data)",
    volume(downward("..data")),
    { code: "Invalid", field: "spec.volumes[0].downwardAPI.path", detail: `Invalid value: "..data": must not start with '..'` },
  ],
  [
    "a projected downwardAPI item path with '..'",
    volume({ projected: { sources: [downward("a/../../b")] } }),
    { code: "Invalid", field: "spec.volumes[0].projected.sources[0].downwardAPI.path", detail: `Invalid value: "a/../../b": must not contain '..'` },
  ],
  [
    "a configMap item path with '..'",
    volume({ configMap: { name: "cfg", items: [{ key: "k", path: "../k" }] } }),
    { code: "Invalid", field: "spec.volumes[0].configMap.items[0].path", detail: `Invalid value: "../k": must not contain '..'` },
  ],
  [
    "an absolute secret item path",
    volume({ secret: { secretName: "s", items: [{ key: "k", path: "/k" }] } }),
    { code: "Invalid", field: "spec.volumes[0].secret.items[0].path", detail: `Invalid value: "/k": must be a relative path` },
  ],
  [
    "Bidirectional propagation in an unprivileged container",
    (p) => (p.spec.containers[0].volumeMounts[0].mountPropagation = "Bidirectional"),
    { code: "Forbidden", field: "spec.containers[0].volumeMounts.mountPropagation", detail: "Forbidden: Bidirectional mount propagation is available only to privileged containers" },
  ],
  [
    "an unknown propagation",
    (p) => (p.spec.containers[0].volumeMounts[0].mountPropagation = "Shared"),
    { code: "NotSupported", field: "spec.containers[0].volumeMounts.mountPropagation", detail: 'Unsupported value: "Shared": supported values: "Bidirectional", "HostToContainer", "None"' },
  ],
];

describe("ValidatePodCreate's path rules refuse a static pod that reaches outside its volumes", () => {
  for (const [name, edit, cause] of refused) {
    test(name, () => expect(causesOf(edit)).toContainEqual(cause as FieldError));
  }

  test("'..' is refused once, however many times it appears", () => {
    expect(causesOf(volume({ hostPath: { path: "../../../.." } })).filter((c) => c.field === "spec.volumes[0].hostPath.path")).toHaveLength(1);
  });

  test.each([
    ["a hostPath with dots inside names", volume({ hostPath: { path: "/var/lib/..hidden/x..y" } })],
    ["nested downwardAPI paths", volume(downward("meta/name"))],
    ["a downwardAPI path with '..' inside a name", volume(downward("a..b"))],
    ["Bidirectional in a privileged container", (p: Json) => ((p.spec.containers[0].volumeMounts[0].mountPropagation = "Bidirectional"), (p.spec.containers[0].securityContext = { privileged: true }))],
    ["HostToContainer in an unprivileged container", (p: Json) => (p.spec.containers[0].volumeMounts[0].mountPropagation = "HostToContainer")],
  ])("%s decode", (_, edit) => {
    expect(decodeManifest(manifest(edit), origin).metadata.name).toBe("web-node-a");
  });
});
