/**
 * Several bunlet nodes on one host, as a kind-like test cluster: two bunlets with their own node
 * name, root dir, ports and containerd (each with its own bridge and pod subnet) join one real
 * control plane (scripts/cluster.sh). Node A uses a containerd of its own (the harness's), node B
 * its embedded containerd with --pod-cidr and --cni-bridge-name, the way several nodes share a
 * host. kube-scheduler spreads a Deployment of 10 replicas over
 * both and `kubectl` shows them Running; a pod on one node reaches a pod on the other by its IP;
 * a pod reaches the apiserver through the `kubernetes` Service's ClusterIP (kube-proxy).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE, containerdPaths } from "../../../src/containerd/index.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";
import { deleteLink, deleteNatRulesFor, killShims, unmountUnder } from "../../harness/cleanup.ts";
import { closeNamespace, namespaceFor, openNamespace, sharedTestCluster, type NamespacedCluster } from "../../harness/shared-cluster.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR } from "../../harness/images.ts";
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { waitFor as poll } from "../../harness/wait.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";
import { ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

const NODES = ["bunlet-multi-a", "bunlet-multi-b"];
const NAMESPACE = namespaceFor("multinode");
let cluster: NamespacedCluster;
let ctd: TestContainerd | undefined;
let net: TestNetwork | undefined;
const bunlets: BunletProcess[] = [];
let dir = "";

const logTail = () =>
  bunlets
    .map((b, i) => `${NODES[i]}:\n${b.lines.filter((l) => !(Number(l.v) > 0)).slice(-15).map((l) => JSON.stringify(l)).join("\n")}`)
    .join("\n");
const waitFor = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 180_000) =>
  poll(what, check, { timeoutMs, intervalMs: 500, detail: logTail });

/** Node A: the harness's containerd. Node B: its embedded containerd on a test bridge and /24. */
async function runtimeFlags(i: number, rootDir: string): Promise<string[]> {
  if (i === 0) {
    ctd = await startTestContainerd({ name: `cluster-${NODES[0]}` });
    return [`--container-runtime-endpoint=${ctd.endpoint}`];
  }
  await ensureImages();
  net = allocateTestNetwork();
  // The embedded containerd preloads <root-dir>/images/*.tar (no registry here).
  mkdirSync(join(rootDir, "images"), { recursive: true });
  for (const tar of [BUSYBOX_TAR, PAUSE_TAR]) copyFileSync(tar, join(rootDir, "images", tar.split("/").pop()!));
  return [`--pod-cidr=${net.podSubnet}`, `--cni-bridge-name=${net.bridgeName}`];
}

beforeAll(async () => {
  ensureBuilt();
  cluster = await openNamespace(await sharedTestCluster(), NAMESPACE);
  dir = mkdtempSync(join(tmpdir(), "bunlet-cluster-multi-"));
  for (const [i, node] of NODES.entries()) {
    const root = join(dir, node);
    bunlets.push(
      await startBunlet(
        [
          `--kubeconfig=${await cluster.nodeKubeconfig(node)}`,
          ...(await runtimeFlags(i, join(root, "state"))),
          `--root-dir=${join(root, "state")}`,
          `--pod-logs-dir=${join(root, "logs", "pods")}`,
          `--container-logs-dir=${join(root, "logs", "containers")}`,
          `--hostname-override=${node}`,
          `--healthz-port=${await freePort()}`,
          "--node-status-update-frequency=2s",
        ],
        await freePort(),
      ),
    );
  }
}, 400_000);

afterAll(async () => {
  // SIGTERM: node B's bunlet stops its embedded containerd too (the shims stay, killed below).
  for (const b of bunlets) b.signal("SIGTERM");
  await Promise.all(bunlets.map((b) => b.exited));
  // A namespace that will not go is reported after the rest is cleaned up.
  const closeError = cluster ? await closeNamespace(cluster, NAMESPACE, NODES).then(() => undefined, (err: unknown) => err) : undefined;
  await ctd?.stop();
  if (dir) {
    killShims(containerdPaths(join(dir, NODES[1]!, "state")).socketPath);
    unmountUnder(dir);
  }
  if (net) {
    deleteLink(net.bridgeName);
    deleteNatRulesFor(net.podSubnet);
    net.release();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (closeError) throw closeError;
}, 240_000);

const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(cluster, args);
const apply = (obj: unknown) => kubectlApply(cluster, obj);

/** A pod these tests run: busybox, no service account token (projected volumes are the volume work's). */
function testPod(name: string, command: string[], spec: Partial<Pod["spec"]> = {}): Pod {
  return makePod({
    name,
    namespace: NAMESPACE,
    container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command },
    spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 2, ...spec },
  });
}

/** What a client pod prints when it could not connect: its addresses and routes. */
const diagnostics = "echo could not connect; ip -4 addr; ip -4 route";

const phaseOf = async (name: string) => (await kubectlJson(["get", "pod", name])).status?.phase;

describe("two bunlet nodes on one host", () => {
  test("both register and are Ready", async () => {
    for (const node of NODES) {
      await waitFor(`${node} Ready`, async () => {
        const n = await kubectlJson(["get", "node", node]);
        return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True") && !(n.spec.taints ?? []).some((t: any) => t.key === "node.kubernetes.io/not-ready");
      });
    }
  }, 240_000);

  test("kube-scheduler spreads a Deployment of 10 replicas over both nodes; all Running", async () => {
    await apply({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "sleepers", namespace: NAMESPACE },
      spec: {
        replicas: 10,
        selector: { matchLabels: { app: "sleepers" } },
        template: {
          metadata: { labels: { app: "sleepers" } },
          // Other files' nodes may be Ready on the shared control plane: the scheduler spreads over this file's two.
          spec: testPod("sleeper", ["sleep", "3600"], {
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: NODES }] }] } } },
          }).spec,
        },
      },
    });
    const pods = await waitFor(
      "10 sleepers Running and Ready",
      async () => {
        const list = await kubectlJson(["get", "pods", "-l", "app=sleepers"]);
        const ready = list.items.filter((p: any) => p.status?.phase === "Running" && p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True"));
        return ready.length === 10 ? ready : undefined;
      },
      300_000,
    );
    const byNode = new Set(pods.map((p: any) => p.spec.nodeName));
    expect([...byNode].sort()).toEqual([...NODES].sort());
    // Pod IPs from two bridges, never one twice; node B's from its --pod-cidr.
    const ips = pods.map((p: any) => p.status.podIP);
    expect(new Set(ips).size).toBe(10);
    const prefixB = net!.podSubnet.split(".").slice(0, 3).join(".") + ".";
    for (const p of pods.filter((p: any) => p.spec.nodeName === NODES[1])) expect(p.status.podIP).toStartWith(prefixB);
    const deploy = await kubectlJson(["get", "deployment", "sleepers"]);
    expect(deploy.status.readyReplicas).toBe(10);
  }, 400_000);

  test("a pod on one node reaches a pod on the other by its IP", async () => {
    await apply(testPod("server", ["sh", "-c", "mkdir -p /www && echo hello-from-a > /www/index.html && exec httpd -f -p 8080 -h /www"], boundTo(NODES[0]!, 2)));
    const serverIP = await waitFor("the server pod Running with an IP", async () => {
      const p = await kubectlJson(["get", "pod", "server"]);
      return p.status?.phase === "Running" ? (p.status.podIP as string) : undefined;
    });
    // The host reaches it first (its route to node A's bridge).
    const fromHost = await waitFor("the server answering the host", async () => {
      const r = await fetch(`http://${serverIP}:8080/index.html`, { signal: AbortSignal.timeout(2000) });
      return r.ok ? r.text() : undefined;
    });
    expect(fromHost.trim()).toBe("hello-from-a");
    // An HTTP GET through busybox nc (busybox-static's wget segfaults on this host's test image).
    const get = `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${serverIP} 8080`;
    const fetchLoop = `for i in $(seq 1 20); do ${get} | grep hello-from- && exit 0; sleep 1; done; ${diagnostics}; ping -c 1 -W 1 ${serverIP}; ping -c 1 -W 1 $(ip -4 route | awk '/default/ {print $3}'); exit 1`;
    await apply(testPod("client", ["sh", "-c", fetchLoop], { ...boundTo(NODES[1]!, 2), restartPolicy: "Never" }));
    const phase = await waitFor("the client pod finished", async () => {
      const phase = await phaseOf("client");
      return phase === "Succeeded" || phase === "Failed" ? phase : undefined;
    });
    const logs = (await containerLogs(1, "client")).trim();
    expect({ phase, logs }).toEqual({ phase: "Succeeded", logs: expect.stringContaining("hello-from-a") });
  }, 300_000);

  test("a pod reaches the apiserver through the kubernetes Service's ClusterIP", async () => {
    await waitFor("this cluster's kube-proxy to own the host's Service rules", () => cluster.serviceRulesOwner() === cluster.dir, 240_000).catch(() => {
      const owner = cluster.serviceRulesOwner();
      const stop = existsSync(owner) ? `scripts/cluster.sh down ${owner}` : `its dir is gone, so end its processes (pgrep -af ${owner}/)`;
      throw new Error(`the host's Service rules still belong to the cluster in ${owner} after 4 minutes; stop it: ${stop}`);
    });
    const svc = await kubectlJson(["get", "service", "kubernetes", "-n", "default"]);
    // A kube-proxy that just took the host's rules over needs a moment to write ours: the host
    // reaching the apiserver through the Service says they are there.
    const curl = ["curl", "-fsS", "--max-time", "3", "--cacert", cluster.serverCaFile, `https://${svc.spec.clusterIP}/readyz`];
    await waitFor("the host reaching the apiserver through the Service IP", () => Bun.spawnSync(curl, { stdout: "pipe", stderr: "pipe" }).stdout.toString() === "ok", 240_000);
    // busybox nc has no -z: with stdin at EOF it connects, then exits 0 (1 if the connect fails).
    const script = `for i in $(seq 1 20); do nc -w 2 ${svc.spec.clusterIP} 443 </dev/null && exit 0; sleep 1; done; ${diagnostics}; exit 1`;
    await apply(testPod("svc-client", ["sh", "-c", script], { ...boundTo(NODES[1]!, 2), restartPolicy: "Never" }));
    const phase = await waitFor("the Service client finished", async () => {
      const phase = await phaseOf("svc-client");
      return phase === "Succeeded" || phase === "Failed" ? phase : undefined;
    }, 300_000);
    expect({ phase, logs: phase === "Succeeded" ? "" : await containerLogs(1, "svc-client") }).toEqual({ phase: "Succeeded", logs: "" });
  }, 800_000);
});

/** The container log bunlet wrote for a pod on node i (CRI log format: time stream tag text). */
async function containerLogs(i: number, podName: string): Promise<string> {
  const root = join(dir, NODES[i]!, "logs", "pods");
  const glob = new Bun.Glob(`${NAMESPACE}_${podName}_*/main/*.log`);
  let text = "";
  for await (const f of glob.scan({ cwd: root })) text += await Bun.file(join(root, f)).text();
  return text
    .split("\n")
    .map((l) => l.split(" ").slice(3).join(" "))
    .join("\n");
}
