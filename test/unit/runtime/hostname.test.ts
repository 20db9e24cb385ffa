// A pod's hostname, domain and kernel nodename: kubelet_pods_test.go TestGeneratePodHostNameAndDomain
// and TestTruncatePodHostname, util_test.go TestGetNodenameForKernel (the validation cases are
// podconfig's here), then the sandbox config and the managed /etc/hosts built from them.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { ensureHostsFile } from "../../../src/runtime/hosts.ts";
import { generatePodHostnameAndDomain, nodenameForKernel } from "../../../src/runtime/hostname.ts";
import { generatePodSandboxConfig } from "../../../src/runtime/sandbox-config.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (spec: Partial<Pod["spec"]>, name = "test-pod"): Pod => makePod({ name, namespace: "default", metadata: { uid: "u1" }, spec });

describe("GeneratePodHostNameAndDomain", () => {
  test.each([
    ["pod name as hostname", pod({}), "test-pod", ""],
    ["spec.hostname", pod({ hostname: "custom-hostname" }), "custom-hostname", ""],
    ["a subdomain gives the domain", pod({ subdomain: "my-subdomain" }), "test-pod", "my-subdomain.default.svc.cluster.local"],
    ["hostname and subdomain", pod({ hostname: "custom-hostname", subdomain: "my-subdomain" }), "custom-hostname", "my-subdomain.default.svc.cluster.local"],
    ["hostnameOverride overrides hostname and subdomain, no domain", pod({ hostname: "custom-hostname", subdomain: "my-subdomain", hostnameOverride: "override-hostname" }), "override-hostname", ""],
    ["hostnameOverride with dots is kept whole", pod({ hostnameOverride: "override.example.host" }), "override.example.host", ""],
    ["a long pod name is cut to 63", pod({}, "a".repeat(70)), "a".repeat(63), ""],
    ["cut without a trailing '-'", pod({}, `${"a".repeat(62)}-b`), "a".repeat(62), ""],
    ["a 64-character hostnameOverride is cut without a trailing '.'", pod({ hostnameOverride: `${"a".repeat(62)}.bc` }), "a".repeat(62), ""],
  ] as [string, Pod, string, string][])("%s", (_n, p, hostname, domain) =>
    expect(generatePodHostnameAndDomain(p, "cluster.local")).toEqual({ hostname, domain }),
  );
});

describe("GetNodenameForKernel", () => {
  test.each([
    ["no domain, setHostnameAsFQDN false", "test.pod.hostname", "", false, "test.pod.hostname"],
    ["no domain, setHostnameAsFQDN true", "test.pod.hostname", "", true, "test.pod.hostname"],
    ["a domain, setHostnameAsFQDN false", "test.pod.hostname", "svc.subdomain.local", false, "test.pod.hostname"],
    ["a domain, setHostnameAsFQDN true", "test.pod.hostname", "svc.subdomain.local", true, "test.pod.hostname.svc.subdomain.local"],
    ["a domain, setHostnameAsFQDN unset", "h", "svc.subdomain.local", undefined, "h"],
  ] as [string, string, string, boolean | undefined, string][])("%s", (_n, hostname, domain, fqdn, out) =>
    expect(nodenameForKernel({ hostname, domain }, fqdn)).toBe(out),
  );

  test("an FQDN over 64 characters is an error with the kubelet's message", () => {
    expect(() => nodenameForKernel({ hostname: "a".repeat(40), domain: "sub.default.svc.cluster.local" }, true)).toThrow(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${"a".repeat(40)}.sub.default.svc.cluster.local is too long (64 characters is the max, 70 characters requested)`,
    );
  });
});

describe("the sandbox's hostname and the managed /etc/hosts (upstream pod_hostnameoverride.go)", () => {
  const opts = { podLogsDir: "/var/log/pods", nodeDns: { servers: [], searches: [], options: [] }, clusterDns: { servers: [], domain: "cluster.local" } };
  const hostsLine = (p: Pod): string => {
    const dir = mkdtempSync(join(tmpdir(), "hostname-"));
    try {
      return readFileSync(ensureHostsFile(dir, p, ["10.0.0.5"], "cluster.local"), "utf8").split("\n").find((l) => l.startsWith("10.0.0.5"))!;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  // The spec runs `hostname` and `hostname -f` (glibc: the canonical name of the hostname's
  // /etc/hosts entry) and wants the override for both.
  test.each([
    ["a valid DNS subdomain", { hostnameOverride: "override.example.host" }, "override.example.host", "10.0.0.5\toverride.example.host"],
    ["hostname and hostnameOverride", { hostname: "custom-host", hostnameOverride: "override-host" }, "override-host", "10.0.0.5\toverride-host"],
    ["only hostnameOverride", { hostnameOverride: "override-host" }, "override-host", "10.0.0.5\toverride-host"],
    ["subdomain and hostnameOverride", { subdomain: "t", hostnameOverride: "override-host" }, "override-host", "10.0.0.5\toverride-host"],
    ["subdomain without override: FQDN first in /etc/hosts, short sandbox hostname", { subdomain: "t" }, "test-pod", "10.0.0.5\ttest-pod.t.default.svc.cluster.local\ttest-pod"],
    ["subdomain with setHostnameAsFQDN: the FQDN is the sandbox hostname", { subdomain: "t", setHostnameAsFQDN: true }, "test-pod.t.default.svc.cluster.local", "10.0.0.5\ttest-pod.t.default.svc.cluster.local\ttest-pod"],
  ] as [string, Partial<Pod["spec"]>, string, string][])("%s", (_n, spec, sandboxHostname, line) => {
    expect(generatePodSandboxConfig(pod(spec), 0, opts).hostname).toBe(sandboxHostname);
    expect(hostsLine(pod(spec))).toBe(line);
  });

  test("a host-network pod keeps the node's hostname", () => {
    expect(generatePodSandboxConfig(pod({ hostNetwork: true, hostname: "h" }), 0, opts).hostname).toBe("");
  });
});

describe("the sandbox's cgroup parent", () => {
  const opts = { podLogsDir: "/var/log/pods", nodeDns: { servers: [], searches: [], options: [] }, clusterDns: { servers: [], domain: "" } };
  const p = makePod({ name: "p", namespace: "default", metadata: { uid: "u-1" }, container: { name: "c", image: "busybox" } });

  test("is the pod cgroup the container manager names, as RunPodSandbox's linux.cgroup_parent", () => {
    const config = generatePodSandboxConfig(p, 0, { ...opts, podCgroupParent: (pod) => `/kubepods/besteffort/pod${pod.metadata.uid}` });
    expect(config.linux?.cgroupParent).toBe("/kubepods/besteffort/podu-1");
  });

  test("is empty without a container manager (the runtime's default cgroup)", () => {
    expect(generatePodSandboxConfig(p, 0, opts).linux?.cgroupParent).toBe("");
  });
});
