/**
 * Pods that reach each other across hosts (issue 28). Four "hosts", each a network namespace on
 * a bridge of this machine with its own bunlet and embedded containerd, join one control plane
 * (scripts/cluster.sh, whose controller-manager allocates node CIDRs). Hosts A and B run bunlet
 * without --pod-cidr: their pods get addresses from their Node's spec.podCIDR, bunlet routes each
 * other's pod CIDR via the other's InternalIP (host-gw), pod-to-pod traffic keeps its source
 * address (TCP, a UDP round trip, and through a ClusterIP Service served by a kube-proxy in host
 * A), a restart keeps the routes and the pods' addresses, and a Node deleted from the cluster
 * loses its route.
 * Host D sits on another bridge, a router (this machine) away: it is reached over VXLAN. Host C
 * runs with --cni-conf-dir naming a conf dir written by hand (a cluster CNI's stand-in): its pods
 * get that range, and bunlet renders no bridge and keeps no routes there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE, containerdPaths } from "../../../src/containerd/index.ts";
import { ROUTE_PROTOCOL } from "../../../src/network/host.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";
import { unmountUnder } from "../../harness/cleanup.ts";
import { startTestCluster, type TestCluster } from "../../harness/cluster.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR } from "../../harness/images.ts";
import { waitFor as poll } from "../../harness/wait.ts";
import { ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "../cluster/kubectl.ts";
import { createTestLan, type TestHost, type TestLan } from "./hosts.ts";

const NAMES = ["bunlet-net-a", "bunlet-net-b", "bunlet-net-c", "bunlet-net-d"];
const CNI_RANGE = "10.66.0.0/24";
let cluster: TestCluster;
/** Hosts A, B and C on one bridge; host D on another, a router (this machine) away. */
const lans: TestLan[] = [];
let dir = "";
const bunlets = new Map<string, BunletProcess>();
let kubeProxy: Bun.Subprocess | undefined;

const host = (i: number): TestHost => (i < 3 ? lans[0]!.hosts[i]! : lans[1]!.hosts[i - 3]!);
const root = (i: number) => join(dir, NAMES[i]!);
const logTail = () =>
  [...bunlets].map(([n, b]) => `${n}:\n${b.lines.filter((l) => !(Number(l.v) > 0)).slice(-12).map((l) => JSON.stringify(l)).join("\n")}`).join("\n");
const waitFor = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 180_000) =>
  poll(what, check, { timeoutMs, intervalMs: 500, detail: logTail });
const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(cluster, args);
const apply = (obj: unknown) => kubectlApply(cluster, obj);

async function startNode(i: number, extra: string[] = []): Promise<BunletProcess> {
  const r = root(i);
  const b = await startBunlet(
    [
      `--kubeconfig=${join(dir, `${NAMES[i]}.kubeconfig`)}`,
      `--root-dir=${join(r, "state")}`,
      `--pod-logs-dir=${join(r, "logs", "pods")}`,
      `--container-logs-dir=${join(r, "logs", "containers")}`,
      `--hostname-override=${NAMES[i]}`,
      `--node-ip=${host(i).ip}`,
      `--healthz-port=${await freePort()}`,
      "--node-status-update-frequency=2s",
      ...extra,
    ],
    await freePort(),
    host(i).enter,
  );
  bunlets.set(NAMES[i]!, b);
  return b;
}

/** Host C's "cluster CNI": a bridge conflist on another range, written by hand. */
function clusterCniFlags(): string[] {
  const confDir = join(root(2), "cni-net.d");
  mkdirSync(confDir, { recursive: true });
  const conflist = {
    cniVersion: "1.0.0",
    name: "handmade",
    plugins: [{ type: "bridge", bridge: "cni0", isGateway: true, ipMasq: true, ipam: { type: "host-local", ranges: [[{ subnet: CNI_RANGE }]], dataDir: join(root(2), "ipam") } }],
  };
  writeFileSync(join(confDir, "10-handmade.conflist"), JSON.stringify(conflist));
  return [`--cni-conf-dir=${confDir}`, "--cni-bin-dir=/usr/lib/cni"];
}

/** What docs/network.md asks an operator to apply for host-gw and VXLAN routes. */
const NODE_LIST_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bunlet:node-routes
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: bunlet:node-routes
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: bunlet:node-routes
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: system:nodes
`;

beforeAll(async () => {
  ensureBuilt();
  await ensureImages();
  cluster = await startTestCluster({ name: "network" });
  dir = mkdtempSync(join(tmpdir(), "bunlet-network-"));
  // One at a time, so afterAll removes the first even when the second cannot be made.
  // Routes need every Node; since 1.34 a node's own credentials read only its own Node.
  const grant = await cluster.kubectl(["apply", "-f", "-"], { stdin: NODE_LIST_RBAC });
  if (grant.code !== 0) throw new Error(`kubectl apply of the nodes list/watch grant exited ${grant.code}: ${grant.stderr}`);
  lans.push(createTestLan(NAMES.slice(0, 3)));
  lans.push(createTestLan(NAMES.slice(3)));
  for (const [i, name] of NAMES.entries()) {
    copyFileSync(await cluster.nodeKubeconfig(name), join(dir, `${name}.kubeconfig`));
    mkdirSync(join(root(i), "state", "images"), { recursive: true });
    for (const tar of [BUSYBOX_TAR, PAUSE_TAR]) copyFileSync(tar, join(root(i), "state", "images", tar.split("/").pop()!));
    await startNode(i, i === 2 ? clusterCniFlags() : []);
  }
}, 400_000);

afterAll(async () => {
  for (const b of bunlets.values()) b.signal("SIGTERM");
  await Promise.all([...bunlets.values()].map((b) => b.exited));
  kubeProxy?.kill("SIGKILL");
  await kubeProxy?.exited;
  for (const lan of lans) lan.destroy(NAMES.map((_, i) => containerdPaths(join(root(i), "state")).socketPath));
  if (dir) unmountUnder(dir);
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 240_000);

/** A pod bound to host `node` (no scheduler), its one container running command. */
function hostPod(name: string, node: number, command: string[], o: { labels?: Record<string, string>; spec?: Partial<Pod["spec"]> } = {}): Pod {
  return makePod({
    name,
    namespace: "default",
    metadata: { labels: o.labels },
    container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command },
    spec: { ...boundTo(NAMES[node]!), ...o.spec },
  });
}

async function runningPod(name: string, node: number, command: string[], labels: Record<string, string> = {}): Promise<string> {
  await apply(hostPod(name, node, command, { labels }));
  return waitFor(`${name} Running with an IP`, async () => {
    const p = await kubectlJson(["get", "pod", name]);
    return p.status?.phase === "Running" && p.status.podIP ? (p.status.podIP as string) : undefined;
  });
}

/** Runs a client pod to its end on host `node`; its phase and what it printed. */
async function clientPod(name: string, node: number, script: string): Promise<{ phase: string; logs: string }> {
  await apply(hostPod(name, node, ["sh", "-c", script], { spec: { restartPolicy: "Never" } }));
  const phase = await waitFor(`${name} finished`, async () => {
    const p = (await kubectlJson(["get", "pod", name])).status?.phase;
    return p === "Succeeded" || p === "Failed" ? (p as string) : undefined;
  });
  return { phase, logs: await containerLogs(node, name) };
}

/** The container log bunlet wrote for a pod on host i (CRI log format: time stream tag text). */
async function containerLogs(i: number, podName: string): Promise<string> {
  const logs = join(root(i), "logs", "pods");
  let text = "";
  for await (const f of new Bun.Glob(`default_${podName}_*/main/*.log`).scan({ cwd: logs })) text += await Bun.file(join(logs, f)).text();
  return text.split("\n").map((l) => l.split(" ").slice(3).join(" ")).join("\n");
}

/** bunlet's routes in host i: `dst via gateway` lines. */
function routes(i: number): string[] {
  const list = JSON.parse(host(i).run(["ip", "-j", "route", "show", "proto", String(ROUTE_PROTOCOL)]) || "[]") as { dst: string; gateway: string }[];
  return list.map((r) => `${r.dst} via ${r.gateway}`).sort();
}

const inRange = (ip: string, cidr: string) => ip.startsWith(cidr.split("/")[0]!.split(".").slice(0, 3).join(".") + ".");
const diagnostics = "echo could not connect; ip -4 addr; ip -4 route";
/** An HTTP GET with busybox nc (busybox-static's wget segfaults on the test image), retried. */
const getLoop = (url: { host: string; port: number; path: string }, expect: string) =>
  `for i in $(seq 1 20); do printf 'GET ${url.path} HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${url.host} ${url.port} | grep '${expect}' && exit 0; sleep 1; done; ${diagnostics}; exit 1`;
/** The client address the server printed (httpd listens on IPv6 too: it prints an IPv4 client as [::ffff:a.b.c.d]). */
const seenFrom = (logs: string) => /seen-from-\[?(?:::ffff:)?([0-9.]+)\]?/.exec(logs)?.[1] ?? `nothing seen in: ${logs}`;
/** busybox httpd with a CGI that prints the client's address as the server sees it. */
const whoAmIServer = [
  "sh",
  "-c",
  `mkdir -p /www/cgi-bin && printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho seen-from-$REMOTE_ADDR\\n' > /www/cgi-bin/ip && chmod +x /www/cgi-bin/ip && exec httpd -f -p 8080 -h /www`,
];

describe("pods on two hosts, host-gw routes between them", () => {
  const podCIDR: string[] = [];
  const ips: Record<string, string> = {};

  test("each Node is Ready with a spec.podCIDR, and its pods get addresses from it", async () => {
    for (const i of [0, 1]) {
      podCIDR[i] = await waitFor(`${NAMES[i]} Ready with a pod CIDR`, async () => {
        const n = await kubectlJson(["get", "node", NAMES[i]!]);
        const ready = n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
        return ready && n.spec?.podCIDR ? (n.spec.podCIDR as string) : undefined;
      });
    }
    expect(podCIDR[0]).not.toBe(podCIDR[1]);
    ips.server = await runningPod("server", 1, whoAmIServer, { app: "net-server" });
    ips.sleeper = await runningPod("sleeper", 0, ["sleep", "3600"]);
    expect(inRange(ips.server, podCIDR[1]!)).toBe(true);
    expect(inRange(ips.sleeper, podCIDR[0]!)).toBe(true);
    // Host C's Node has a range too (unused there: its CNI decides), so A and B route to it as well.
    await waitFor("A and B route to each other's pods", () => routes(0).includes(`${podCIDR[1]} via ${host(1).ip}`) && routes(1).includes(`${podCIDR[0]} via ${host(0).ip}`), 60_000);
  }, 300_000);

  test("a pod on host A reaches a pod on host B by IP over TCP, and B sees A's pod address (no masquerade)", async () => {
    const { phase, logs } = await clientPod("tcp-client", 0, `ip -4 -o addr show eth0; ${getLoop({ host: ips.server!, port: 8080, path: "/cgi-bin/ip" }, "seen-from-")}`);
    const mine = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(logs)?.[1];
    expect({ phase, seen: seenFrom(logs), inA: inRange(mine ?? "", podCIDR[0]!) }).toEqual({ phase: "Succeeded", seen: mine ?? "the client printed no address", inA: true });
  }, 300_000);

  test("a pod on host A reaches a pod on host B by IP over UDP", async () => {
    // busybox has no UDP server; a DNS query to port 53 of the server pod, where nothing listens,
    // comes back as the pod's ICMP port unreachable ("Connection refused"): a UDP round trip
    // between the pods (an unrouted one times out instead).
    const probe = `for i in $(seq 1 10); do nslookup probe ${ips.server} 2>&1 | tee /tmp/out | grep -q 'Connection refused' && { echo udp-round-trip; exit 0; }; cat /tmp/out; sleep 1; done; ${diagnostics}; exit 1`;
    const { phase, logs } = await clientPod("udp-client", 0, probe);
    expect({ phase, logs: logs.includes("udp-round-trip") ? "" : logs }).toEqual({ phase: "Succeeded", logs: "" });
  }, 300_000);

  test("a pod on host A reaches host B's pod through a ClusterIP Service (kube-proxy in host A)", async () => {
    const yaml = join(dir, "kube-proxy.yaml");
    writeFileSync(
      yaml,
      [
        "apiVersion: kubeproxy.config.k8s.io/v1alpha1",
        "kind: KubeProxyConfiguration",
        `clientConnection: { kubeconfig: ${join(cluster.dir, "kube-proxy.kubeconfig")} }`,
        "mode: iptables",
        `hostnameOverride: ${NAMES[0]}`,
        `clusterCIDR: ${cluster.env.CLUSTER_CIDR}`,
        "healthzBindAddress: 127.0.0.1:10256",
        "metricsBindAddress: 127.0.0.1:10249",
        "conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }",
        "",
      ].join("\n"),
    );
    kubeProxy = Bun.spawn([...host(0).enter, join(cluster.env.K8S_BIN!, "kube-proxy"), `--config=${yaml}`, "--v=1"], {
      stdout: "ignore",
      stderr: Bun.file(join(dir, "kube-proxy.log")),
    });
    await apply({ apiVersion: "v1", kind: "Service", metadata: { name: "net-server", namespace: "default" }, spec: { selector: { app: "net-server" }, ports: [{ port: 80, targetPort: 8080 }] } });
    const clusterIP = (await kubectlJson(["get", "service", "net-server"])).spec.clusterIP as string;
    await waitFor("kube-proxy's rules for the Service in host A", () => host(0).run(["iptables-save", "-t", "nat"]).includes(`${clusterIP}/32`), 120_000);
    const { phase, logs } = await clientPod("svc-client", 0, getLoop({ host: clusterIP, port: 80, path: "/cgi-bin/ip" }, "seen-from-"));
    expect({ phase, logs: logs.includes("seen-from-") ? "" : logs + readFileSync(join(dir, "kube-proxy.log"), "utf8").slice(-2000) }).toEqual({ phase: "Succeeded", logs: "" });
  }, 300_000);

  test("a pod on host A reaches a pod on host D, on another subnet, over VXLAN; D sees A's pod address", async () => {
    const cidrD = await waitFor(`${NAMES[3]} Ready with a pod CIDR`, async () => {
      const n = await kubectlJson(["get", "node", NAMES[3]!]);
      return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True") && n.spec?.podCIDR ? (n.spec.podCIDR as string) : undefined;
    });
    const gateway = cidrD.split("/")[0]!;
    await waitFor("A and D route to each other's pods through the vxlan device", () => routes(0).includes(`${cidrD} via ${gateway}`) && routes(3).includes(`${podCIDR[0]} via ${podCIDR[0]!.split("/")[0]}`), 60_000);
    ips.serverD = await runningPod("server-d", 3, whoAmIServer);
    expect(inRange(ips.serverD, cidrD)).toBe(true);
    const { phase, logs } = await clientPod("vxlan-client", 0, `ip -4 -o addr show eth0; ${getLoop({ host: ips.serverD, port: 8080, path: "/cgi-bin/ip" }, "seen-from-")}`);
    const mine = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(logs)?.[1];
    expect({ phase, seen: seenFrom(logs) }).toEqual({ phase: "Succeeded", seen: mine ?? "the client printed no address" });
    expect(host(0).run(["ip", "-d", "link", "show", "bunlet.vxlan"])).toContain("vxlan id 1");
  }, 300_000);

  test("a restart of bunlet keeps the routes and the pods' addresses", async () => {
    const before = { a: routes(0), b: routes(1) };
    const b = bunlets.get(NAMES[0]!)!;
    b.signal("SIGTERM");
    await b.exited;
    expect(routes(0)).toEqual(before.a); // bunlet removes nothing on the way out
    const again = await startNode(0);
    await waitFor("bunlet A running again", () => again.lines.some((l) => l.msg === "bunlet is running"));
    await waitFor("bunlet A's routes in sync", () => again.lines.some((l) => l.msg === "Routes to the other nodes' pods are in place"), 60_000);
    const sleeper = await kubectlJson(["get", "pod", "sleeper"]);
    expect({ ip: sleeper.status.podIP, restarts: sleeper.status.containerStatuses?.[0]?.restartCount }).toEqual({ ip: ips.sleeper, restarts: 0 });
    expect({ a: routes(0), b: routes(1) }).toEqual(before);
    expect(again.lines.filter((l) => l.msg === "Updating Pod CIDR")).toEqual([]);
    const { phase } = await clientPod("tcp-client-2", 0, getLoop({ host: ips.server!, port: 8080, path: "/cgi-bin/ip" }, "seen-from-"));
    expect(phase).toBe("Succeeded");
  }, 300_000);

  test("a node deleted from the cluster loses its route on the other", async () => {
    expect(routes(0)).toContain(`${podCIDR[1]} via ${host(1).ip}`);
    const b = bunlets.get(NAMES[1]!)!;
    b.signal("SIGTERM");
    await b.exited;
    bunlets.delete(NAMES[1]!);
    const r = await cluster.kubectl(["delete", "node", NAMES[1]!]);
    expect(r.code).toBe(0);
    await waitFor("host A without a route to host B's pods", () => !routes(0).some((r) => r.startsWith(`${podCIDR[1]} `)), 60_000);
  }, 120_000);
});

describe("a cluster CNI's configuration (--cni-conf-dir)", () => {
  test("pods get the range of the hand-written conflist; bunlet renders no bridge and keeps no routes", async () => {
    await waitFor(`${NAMES[2]} Ready`, async () => (await kubectlJson(["get", "node", NAMES[2]!])).status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True"));
    const ip = await runningPod("cni-pod", 2, ["sleep", "3600"]);
    expect(inRange(ip, CNI_RANGE)).toBe(true);
    expect(routes(2)).toEqual([]);
    expect(Bun.spawnSync(["test", "-e", containerdPaths(join(root(2), "state")).cniConflistFile]).exitCode).not.toBe(0);
    expect(host(2).run(["iptables-save"])).not.toContain("BUNLET-");
  }, 300_000);
});
