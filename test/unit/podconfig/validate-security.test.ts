/**
 * ValidatePodCreate's seccomp rules for static pods (CVE-2023-2431 is the kubelet's half: an empty
 * localhostProfile passes the apiserver and is refused when the container is created, see
 * test/unit/runtime/security-context.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { decodeManifest } from "../../../src/podconfig/decode.ts";
import { ManifestError } from "../../../src/podconfig/errors.ts";

const origin = { source: "seccomp.yaml", nodeName: "node-a", isFile: true };
type Json = Record<string, any>;

function manifest(edit: (pod: Json) => void): string {
  const pod: Json = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers: [{ name: "web", image: "docker.io/library/busybox:1.36" }] },
  };
  edit(pod);
  return JSON.stringify(pod);
}

function messageOf(data: string): string {
  try {
    decodeManifest(data, origin);
  } catch (err) {
    if (err instanceof ManifestError) return err.message;
    throw err;
  }
  throw new Error("expected a ManifestError, the manifest decoded");
}

const podSc = (sp: Json) => (p: Json) => (p.spec.securityContext = { seccompProfile: sp });
const containerSc = (sp: Json) => (p: Json) => (p.spec.containers[0].securityContext = { seccompProfile: sp });
const annotation = (key: string, value: string) => (p: Json) => (p.metadata.annotations = { [key]: value });

describe("static pods: seccomp profiles are validated as the apiserver does", () => {
  test.each([
    [
      "a pod-level Localhost profile without a name",
      podSc({ type: "Localhost" }),
      "spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
    ],
    [
      "a container-level Localhost profile without a name",
      containerSc({ type: "Localhost" }),
      "spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
    ],
    [
      "a profile that climbs out of the seccomp root",
      containerSc({ type: "Localhost", localhostProfile: "../../etc/x.json" }),
      `spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "../../etc/x.json": must not contain '..'`,
    ],
    [
      "an absolute profile path",
      podSc({ type: "Localhost", localhostProfile: "/etc/x.json" }),
      `spec.securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/x.json": must be a relative path`,
    ],
    [
      "an unknown type",
      podSc({ type: "Off" }),
      `spec.securityContext.seccompProfile.type: Unsupported value: "Off": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
    ],
    [
      "a pod annotation that climbs out",
      annotation("seccomp.security.alpha.kubernetes.io/pod", "localhost/../x"),
      `metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "../x": must not contain '..'`,
    ],
    [
      "a container annotation with an unknown profile",
      annotation("container.seccomp.security.alpha.kubernetes.io/web", "off"),
      `metadata.annotations.container.seccomp.security.alpha.kubernetes.io/web: Invalid value: "off": must be a valid seccomp profile`,
    ],
  ])("refuses %s", (_name, edit, message) => {
    expect(messageOf(manifest(edit))).toBe(`seccomp.yaml: ${message}`);
  });

  test("an empty localhostProfile passes validation, as in the apiserver: the runtime refuses it", () => {
    expect(() => decodeManifest(manifest(containerSc({ type: "Localhost", localhostProfile: "" })), origin)).not.toThrow();
    expect(() => decodeManifest(manifest(podSc({ type: "RuntimeDefault" })), origin)).not.toThrow();
  });
});
