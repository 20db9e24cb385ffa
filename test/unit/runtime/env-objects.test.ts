// makeEnvironmentVariables with API objects: envFrom with prefix and optional, configMapKeyRef and
// secretKeyRef, the kubelet's messages for a missing object or key, expansion against earlier
// variables, and the service-link variables (pkg/kubelet/envvars, getServiceEnvVarMap).
import { describe, expect, test } from "bun:test";
import type { ConfigMap, Container, Pod, Secret, Service } from "../../../src/api/index.ts";
import { makeEnvironmentVariables, ObjectNotFoundError, type EnvObjects } from "../../../src/runtime/env.ts";
import { Reason, SyncError } from "../../../src/runtime/errors.ts";
import { serviceEnvVars } from "../../../src/runtime/service-env.ts";
import { makePod } from "../../fixtures/pods.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const configMaps: Record<string, ConfigMap> = {
  "ns/cm": { metadata: { name: "cm", namespace: "ns" }, data: { A: "a", B: "b" } },
};
const secrets: Record<string, Secret> = {
  "ns/sec": { metadata: { name: "sec", namespace: "ns" }, data: { PASS: b64("s3cret"), "user-name": b64("admin") } },
};
const services: Service[] = [
  { metadata: { name: "kubernetes", namespace: "default" }, spec: { clusterIP: "10.0.0.1", ports: [{ name: "https", port: 443, protocol: "TCP" }] } },
  { metadata: { name: "my-db", namespace: "ns" }, spec: { clusterIP: "10.0.0.9", ports: [{ port: 5432 }] } },
  { metadata: { name: "headless", namespace: "ns" }, spec: { clusterIP: "None", ports: [{ port: 80 }] } },
  { metadata: { name: "other", namespace: "elsewhere" }, spec: { clusterIP: "10.0.0.7", ports: [{ port: 80 }] } },
];
const objects: EnvObjects = {
  configMap: async (ns, name) => configMaps[`${ns}/${name}`] ?? Promise.reject(new ObjectNotFoundError("configmap", name)),
  secret: async (ns, name) => secrets[`${ns}/${name}`] ?? Promise.reject(new ObjectNotFoundError("secret", name)),
  services: async () => services,
};
const ctx = { nodeName: "n1", podIPs: ["10.1.0.2"], hostIPs: ["192.168.0.1"], cpuCapacityMilli: 2000, memoryCapacity: 2 ** 30, objects };

function pod(c: Container, enableServiceLinks = false): Pod {
  return makePod({ name: "p", namespace: "ns", metadata: { uid: "u" }, spec: { containers: [c], enableServiceLinks } });
}
async function env(c: Container, links = false): Promise<Record<string, string>> {
  return Object.fromEntries((await makeEnvironmentVariables(pod(c, links), c, ctx)).map((e) => [e.name, e.value]));
}
const k8sVars = {
  KUBERNETES_SERVICE_HOST: "10.0.0.1",
  KUBERNETES_SERVICE_PORT: "443",
  KUBERNETES_SERVICE_PORT_HTTPS: "443",
  KUBERNETES_PORT: "tcp://10.0.0.1:443",
  KUBERNETES_PORT_443_TCP: "tcp://10.0.0.1:443",
  KUBERNETES_PORT_443_TCP_PROTO: "tcp",
  KUBERNETES_PORT_443_TCP_PORT: "443",
  KUBERNETES_PORT_443_TCP_ADDR: "10.0.0.1",
};

describe("env from API objects", () => {
  const ok: [string, Container, Record<string, string>][] = [
    ["envFrom a ConfigMap", { name: "c", envFrom: [{ configMapRef: { name: "cm" } }] }, { A: "a", B: "b" }],
    ["envFrom with a prefix", { name: "c", envFrom: [{ prefix: "CM_", configMapRef: { name: "cm" } }] }, { CM_A: "a", CM_B: "b" }],
    ["envFrom a Secret, decoded", { name: "c", envFrom: [{ secretRef: { name: "sec" } }] }, { PASS: "s3cret", "user-name": "admin" }],
    ["envFrom a missing optional ConfigMap", { name: "c", envFrom: [{ configMapRef: { name: "gone", optional: true } }] }, {}],
    ["configMapKeyRef", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cm", key: "B" } } }] }, { X: "b" }],
    ["secretKeyRef", { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "sec", key: "PASS" } } }] }, { X: "s3cret" }],
    ["a missing optional key is skipped", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cm", key: "nope", optional: true } } }] }, {}],
    ["a missing optional Secret is skipped", { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "gone", key: "k", optional: true } } }] }, {}],
    [
      "env overrides envFrom and expands against it",
      { name: "c", envFrom: [{ configMapRef: { name: "cm" } }], env: [{ name: "A", value: "$(B)-x" }] },
      { A: "b-x", B: "b" },
    ],
  ];
  test.each(ok)("%s", async (_name, c, expected) => {
    expect(await env(c)).toEqual({ ...expected, ...k8sVars });
  });

  const failing: [string, Container, string][] = [
    ["a missing ConfigMap", { name: "c", envFrom: [{ configMapRef: { name: "gone" } }] }, 'configmap "gone" not found'],
    ["a missing Secret", { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "gone", key: "k" } } }] }, 'secret "gone" not found'],
    ["a missing ConfigMap key", { name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cm", key: "nope" } } }] }, "couldn't find key nope in ConfigMap ns/cm"],
    ["a missing Secret key", { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "sec", key: "nope" } } }] }, "couldn't find key nope in Secret ns/sec"],
  ];
  test.each(failing)("%s is CreateContainerConfigError: %s", async (_name, c, message) => {
    const err = await makeEnvironmentVariables(pod(c), c, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SyncError);
    expect((err as SyncError).reason).toBe(Reason.CreateContainerConfigError);
    expect((err as SyncError).message).toBe(message);
  });
});

describe("service links", () => {
  test("before the Services were read once an API pod waits (the kubelet's error); a static pod starts without them", async () => {
    const unread = { ...ctx, objects: { ...objects, services: async () => undefined } };
    const c: Container = { name: "c", env: [{ name: "X", value: "1" }] };
    const apiPod = { ...pod(c), metadata: { ...pod(c).metadata, annotations: { "kubernetes.io/config.source": "api" } } };
    await expect(makeEnvironmentVariables(apiPod, c, unread)).rejects.toThrow("services have not yet been read at least once, cannot construct envvars");
    const staticPod = { ...pod(c), metadata: { ...pod(c).metadata, annotations: { "kubernetes.io/config.source": "file" } } };
    expect(await makeEnvironmentVariables(staticPod, c, unread)).toEqual([{ name: "X", value: "1" }]);
  });

  test("the kubernetes Service always, the namespace's Services only with enableServiceLinks", async () => {
    expect(await env({ name: "c" })).toEqual(k8sVars);
    expect(await env({ name: "c" }, true)).toEqual({
      ...k8sVars,
      MY_DB_SERVICE_HOST: "10.0.0.9",
      MY_DB_SERVICE_PORT: "5432",
      MY_DB_PORT: "tcp://10.0.0.9:5432",
      MY_DB_PORT_5432_TCP: "tcp://10.0.0.9:5432",
      MY_DB_PORT_5432_TCP_PROTO: "tcp",
      MY_DB_PORT_5432_TCP_PORT: "5432",
      MY_DB_PORT_5432_TCP_ADDR: "10.0.0.9",
    });
  });

  test("a container variable of the same name wins over a service link", async () => {
    expect((await env({ name: "c", env: [{ name: "KUBERNETES_SERVICE_HOST", value: "mine" }] })).KUBERNETES_SERVICE_HOST).toBe("mine");
  });

  test("values may refer to service links", async () => {
    expect((await env({ name: "c", env: [{ name: "URL", value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)" }] })).URL).toBe(
      "https://10.0.0.1:443",
    );
  });

  test("IPv6 cluster IPs are bracketed in URLs; UDP is lower-cased", () => {
    const v6: Service = { metadata: { name: "dns", namespace: "ns" }, spec: { clusterIP: "fd00::a", ports: [{ name: "dns", port: 53, protocol: "UDP" }] } };
    const vars = serviceEnvVars([v6], "ns", true);
    expect(vars.get("DNS_PORT")).toBe("udp://[fd00::a]:53");
    expect(vars.get("DNS_PORT_53_UDP_PROTO")).toBe("udp");
    expect(vars.get("DNS_SERVICE_PORT_DNS")).toBe("53");
  });
});
