// The kubelet-managed /etc/hosts (managedHostsFileContent, nodeHostsFileContent, the mount rule)
// and ClusterFirst DNS with --cluster-dns / --cluster-domain (GetPodDNS).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { podDnsConfig } from "../../../src/runtime/dns.ts";
import { ensureHostsFile, managedHostsFileContent, nodeHostsFileContent, shouldMountHostsFile } from "../../../src/runtime/hosts.ts";
import { makePod } from "../../fixtures/pods.ts";

const localhost = [
  "# Kubernetes-managed hosts file.",
  "127.0.0.1\tlocalhost",
  "::1\tlocalhost ip6-localhost ip6-loopback",
  "fe00::0\tip6-localnet",
  "fe00::0\tip6-mcastprefix",
  "fe00::1\tip6-allnodes",
  "fe00::2\tip6-allrouters",
].join("\n");

describe("managed /etc/hosts", () => {
  const table: [string, Parameters<typeof managedHostsFileContent>, string][] = [
    ["one IP, no domain", [["10.0.0.5"], "web", ""], `${localhost}\n10.0.0.5\tweb\n`],
    ["dual stack with a subdomain", [["10.0.0.5", "fd00::5"], "web", "sub.ns.svc.cluster.local"], `${localhost}\n10.0.0.5\tweb.sub.ns.svc.cluster.local\tweb\nfd00::5\tweb.sub.ns.svc.cluster.local\tweb\n`],
    [
      "host aliases, all names of an IP on one line",
      [["10.0.0.5"], "web", "", [{ ip: "1.2.3.4", hostnames: ["foo.local", "bar.local"] }, { ip: "::2", hostnames: ["v6"] }]],
      `${localhost}\n10.0.0.5\tweb\n\n# Entries added by HostAliases.\n1.2.3.4\tfoo.local\tbar.local\n::2\tv6\n`,
    ],
  ];
  test.each(table)("%s", (_name, args, expected) => expect(managedHostsFileContent(...args)).toBe(expected));

  test("a host-network pod gets the node's file and its aliases", () => {
    expect(nodeHostsFileContent("127.0.0.1 node\n", [{ ip: "5.6.7.8", hostnames: ["x"] }])).toBe(
      "# Kubernetes-managed hosts file (host network).\n127.0.0.1 node\n\n# Entries added by HostAliases.\n5.6.7.8\tx\n",
    );
  });

  test("mounted only with a pod IP and no mount of the container's own at /etc/hosts", () => {
    expect(shouldMountHostsFile({ name: "c" }, ["10.0.0.5"])).toBe(true);
    expect(shouldMountHostsFile({ name: "c" }, [])).toBe(false);
    expect(shouldMountHostsFile({ name: "c", volumeMounts: [{ name: "h", mountPath: "/etc/hosts" }] }, ["10.0.0.5"])).toBe(false);
  });

  test("the file is <podDir>/etc-hosts, mode 0644, named by spec.hostname", () => {
    const dir = mkdtempSync(join(tmpdir(), "etc-hosts-"));
    try {
      const pod = makePod({ name: "p", namespace: "ns", spec: { hostname: "h1" } });
      const file = ensureHostsFile(dir, pod, ["10.0.0.5"], "");
      expect(file).toBe(join(dir, "etc-hosts"));
      expect(statSync(file).mode & 0o777).toBe(0o644);
      expect(readFileSync(file, "utf8")).toEndWith("10.0.0.5\th1\n");
      const nodeHosts = join(dir, "node-hosts");
      writeFileSync(nodeHosts, "1.1.1.1 n\n");
      ensureHostsFile(dir, { ...pod, spec: { ...pod.spec, hostNetwork: true } }, ["192.168.0.1"], "", nodeHosts);
      expect(readFileSync(file, "utf8")).toBe("# Kubernetes-managed hosts file (host network).\n1.1.1.1 n\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ClusterFirst DNS", () => {
  const node = { servers: ["1.1.1.1"], searches: ["corp.example"], options: ["ndots:1"] };
  const cluster = { servers: ["10.96.0.10"], domain: "cluster.local" };
  const pod = (spec: Partial<Pod["spec"]>): Pod => makePod({ name: "p", namespace: "ns", spec });
  const clusterConfig = { servers: ["10.96.0.10"], searches: ["ns.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"], options: ["ndots:5"] };
  const table: [string, Partial<Pod["spec"]>, typeof cluster, typeof node][] = [
    ["ClusterFirst (the default) uses the cluster's resolver", {}, cluster, clusterConfig],
    ["ClusterFirst without --cluster-dns falls back to the node's", {}, { servers: [], domain: "cluster.local" }, node],
    ["a host-network ClusterFirst pod uses the node's", { hostNetwork: true }, cluster, node],
    ["ClusterFirstWithHostNet uses the cluster's", { hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" }, cluster, clusterConfig],
    ["Default uses the node's", { dnsPolicy: "Default" }, cluster, node],
    ["no --cluster-domain: the node's searches only", {}, { servers: ["10.96.0.10"], domain: "" }, { servers: ["10.96.0.10"], searches: ["corp.example"], options: ["ndots:5"] }],
  ];
  test.each(table)("%s", (_name, spec, c, expected) => expect(podDnsConfig(pod(spec), node, c)).toEqual(expected));
});
