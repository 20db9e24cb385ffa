/**
 * The kind-like local cluster of issue 44 as a user drives it: `scripts/cluster.sh up DIR --nodes 2`
 * gives a control plane and two bunlet node hosts (network namespaces on one bridge, each with its
 * own bunlet, embedded containerd and kube-proxy) and CoreDNS; a ClusterFirst pod on one node
 * finds a Service by name and reaches its pod on the other; the machine reaches a NodePort and a
 * pod IP; `load` puts an image archive on every node; `down` leaves nothing of it behind:
 * no process, namespace, link, route, cgroup or mount (and the kube-apiserver.pid it wrote names
 * no live process).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, BUSYBOX_TAR, ensureImages } from "../../harness/images.ts";
import { pidsNaming } from "../../harness/cleanup.ts";
import { writeOwner } from "../../harness/reap.ts";
import { requireE2e } from "../../harness/require.ts";
import { waitFor } from "../../harness/wait.ts";
import { ensureBuilt } from "../agent/bunlet.ts";

const CLUSTER_SH = join(REPO_ROOT, "scripts/cluster.sh");
const BUSYBOX = "docker.io/library/busybox:1.36";
let dir = "";
let env: Record<string, string> = {};
let upLog = "";

function sh(argv: string[], stdin?: string): { code: number; out: string; err: string } {
  const r = Bun.spawnSync(argv, { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, out: r.stdout.toString(), err: r.stderr.toString() };
}

function kubectl(args: string[], stdin?: string): string {
  const r = sh([join(env.K8S_BIN!, "kubectl"), "--kubeconfig", join(dir, "admin.kubeconfig"), ...args], stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.err.trim()}`);
  return r.out;
}

const json = <T = any>(args: string[]): T => JSON.parse(kubectl([...args, "-o", "json"])) as T;

/** A pod bound to one node, its one container running the command. */
function pod(name: string, node: string, command: string[], o: { image?: string; labels?: Record<string, string>; restart?: string } = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels: o.labels ?? {} },
    spec: {
      nodeName: node,
      restartPolicy: o.restart ?? "Always",
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "main", image: o.image ?? BUSYBOX, imagePullPolicy: "IfNotPresent", command }],
    },
  };
}

async function finished(name: string): Promise<{ phase: string; logs: string }> {
  const phase = await waitFor(`pod ${name} finished`, () => {
    const p = json(["get", "pod", name]).status?.phase as string | undefined;
    return p === "Succeeded" || p === "Failed" ? p : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  return { phase, logs: kubectl(["logs", name]) };
}

function readEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of sh(["bash", CLUSTER_SH, "env", dir]).out.split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

beforeAll(async () => {
  requireE2e(["openssl", "iptables", "curl", "ss", "nsenter", "ctr"]);
  ensureBuilt();
  await ensureImages();
  dir = mkdtempSync(join(tmpdir(), "bunlet-local-cluster-"));
  writeOwner(dir, { ownerPid: process.pid, stopCommand: ["bash", CLUSTER_SH, "down", dir] });
  const started = performance.now();
  const up = Bun.spawn(["bash", CLUSTER_SH, "up", dir, "--nodes", "2"], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(up.stdout).text(), new Response(up.stderr).text(), up.exited]);
  upLog = out + err;
  if (code !== 0) throw new Error(`cluster.sh up --nodes 2 exited ${code}:\n${upLog.split("\n").slice(-30).join("\n")}`);
  console.log(`local cluster: control plane, 2 bunlet nodes and CoreDNS up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  env = readEnv();
}, 900_000);

afterAll(() => {
  if (!dir) return;
  sh(["bash", CLUSTER_SH, "down", dir]);
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe("cluster.sh up --nodes 2", () => {
  test("two bunlet nodes are Ready with pod CIDRs and InternalIPs on the bridge, and CoreDNS is Available", () => {
    const nodes = json(["get", "nodes"]).items as any[];
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(["bunlet-1", "bunlet-2"]);
    for (const n of nodes) {
      expect(n.status.conditions.find((c: any) => c.type === "Ready")?.status).toBe("True");
      expect(n.spec.podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(n.status.addresses.find((a: any) => a.type === "InternalIP")?.address.startsWith(`${env.NODE_NET_PREFIX}.`)).toBe(true);
      expect(n.status.nodeInfo.kubeletVersion).toBe("v1.37.2");
    }
    const dns = json(["-n", "kube-system", "get", "service", "kube-dns"]);
    expect(dns.spec.clusterIP).toBe(env.CLUSTER_DNS_IP);
    expect(json(["-n", "kube-system", "get", "deployment", "coredns"]).status.availableReplicas).toBe(2);
  });

  test("a ClusterFirst pod on bunlet-2 resolves a Service by name and reaches its pod on bunlet-1", async () => {
    kubectl(["apply", "-f", "-"], JSON.stringify(pod("web", "bunlet-1", ["sh", "-c", "mkdir -p /www && echo hello-from-web > /www/index.html && exec httpd -f -p 8080 -h /www"], { labels: { app: "web" } })));
    kubectl(["apply", "-f", "-"], JSON.stringify({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { selector: { app: "web" }, type: "NodePort", ports: [{ port: 80, targetPort: 8080 }] },
    }));
    await waitFor("pod web Running", () => json(["get", "pod", "web"]).status?.phase === "Running", { timeoutMs: 180_000, intervalMs: 1000 });
    const script = [
      "cat /etc/resolv.conf",
      // busybox-static resolves no names itself (glibc NSS); its nslookup asks the cluster DNS.
      "ip=$(nslookup web.default.svc.cluster.local | awk '/^Address: /{a=$2} END{print a}')",
      "echo web is $ip",
      "for i in $(seq 1 30); do printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 $ip 80 | grep hello-from-web && exit 0; sleep 1; done; exit 1",
    ].join("; ");
    kubectl(["apply", "-f", "-"], JSON.stringify(pod("client", "bunlet-2", ["sh", "-c", script], { restart: "Never" })));
    const { phase, logs } = await finished("client");
    expect(logs).toContain(`nameserver ${env.CLUSTER_DNS_IP}`);
    expect(logs).toContain("search default.svc.cluster.local svc.cluster.local cluster.local");
    expect(logs).toContain(`web is ${json(["get", "service", "web"]).spec.clusterIP}`);
    expect(logs).toContain("hello-from-web");
    expect(phase).toBe("Succeeded");
  });

  test("the machine reaches the Service's NodePort on each node, and the pod's IP", async () => {
    const nodePort = json(["get", "service", "web"]).spec.ports[0].nodePort as number;
    const podIP = json(["get", "pod", "web"]).status.podIP as string;
    for (const i of [1, 2]) {
      const url = `http://${env.NODE_NET_PREFIX}.${i + 1}:${nodePort}/`;
      const body = await waitFor(`${url} answers`, () => {
        const r = sh(["curl", "-fsS", "--max-time", "3", url]);
        return r.code === 0 ? r.out : undefined;
      }, { timeoutMs: 60_000, intervalMs: 1000 });
      expect(body).toContain("hello-from-web");
    }
    expect(sh(["curl", "-fsS", "--max-time", "3", `http://${podIP}:8080/`]).out).toContain("hello-from-web");
  });

  test("load puts an image archive on every node: a pod with that image runs on each, never pulled", async () => {
    // busybox's archive under another name: an image no node has.
    const work = mkdtempSync(join(tmpdir(), "bunlet-load-"));
    try {
      expect(sh(["tar", "-xf", BUSYBOX_TAR, "-C", work]).code).toBe(0);
      const manifest = JSON.parse(readFileSync(join(work, "manifest.json"), "utf8"));
      manifest[0].RepoTags = ["example.test/loaded:1"];
      writeFileSync(join(work, "manifest.json"), JSON.stringify(manifest));
      const tar = join(work, "loaded.tar");
      expect(sh(["tar", "-cf", tar, "-C", work, ...readdirSync(work).filter((f) => f !== "loaded.tar")]).code).toBe(0);
      const load = sh(["bash", CLUSTER_SH, "load", dir, tar]);
      expect(load.code).toBe(0);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    for (const node of ["bunlet-1", "bunlet-2"]) {
      const p = pod(`loaded-${node}`, node, ["echo", "loaded image runs"], { image: "example.test/loaded:1", restart: "Never" });
      p.spec.containers[0]!.imagePullPolicy = "Never";
      kubectl(["apply", "-f", "-"], JSON.stringify(p));
    }
    for (const node of ["bunlet-1", "bunlet-2"]) {
      const { phase, logs } = await finished(`loaded-${node}`);
      expect({ node, phase, logs: logs.trim() }).toEqual({ node, phase: "Succeeded", logs: "loaded image runs" });
    }
  });

  test("down removes every process, namespace, link, route, cgroup and mount it made", () => {
    const apiserverPid = Number(readFileSync(join(dir, "run", "kube-apiserver.pid"), "utf8"));
    const down = sh(["bash", CLUSTER_SH, "down", dir]);
    expect(down.code).toBe(0);
    expect(existsSync(`/proc/${apiserverPid}`) && readFileSync(`/proc/${apiserverPid}/cmdline`, "utf8").includes(dir)).toBe(false);
    expect(pidsNaming(dir)).toEqual([]);
    const namespaces = sh(["ip", "netns", "list"]).out;
    expect(namespaces).not.toContain(env.NODE_NS_PREFIX!);
    expect(sh(["ip", "link", "show", env.NODE_BRIDGE!]).code).not.toBe(0);
    expect(sh(["ip", "-4", "route", "show", "proto", "87"]).out).not.toContain(env.NODE_BRIDGE!);
    expect(sh(["ip", "-4", "route"]).out).not.toContain(`${env.NODE_NET_PREFIX}.`);
    const cgroupRoots = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((l) => l.split(" - ")[0]?.split(" ")[4])
      .filter((m): m is string => !!m && m.startsWith("/sys/fs/cgroup"));
    for (const m of cgroupRoots) {
      expect(existsSync(join(m, `${env.NODE_CGROUP_PREFIX}-1`))).toBe(false);
      expect(existsSync(join(m, `${env.NODE_CGROUP_PREFIX}-2`))).toBe(false);
    }
    expect(readFileSync("/proc/mounts", "utf8")).not.toContain(` ${dir}/`);
  });
});
