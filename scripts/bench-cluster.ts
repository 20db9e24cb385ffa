/**
 * Cluster start-up benchmark (issue 17, item 2): the pod start-up SLI as users see it. One local
 * control plane (scripts/cluster.sh), two nodes joined to it on containerds of their own: bunlet
 * and the upstream kubelet. A round creates N pods with spec.nodeName set to one node (through
 * the apiserver, all at once) and is timed until the apiserver reports every one Running with
 * its container ready; then the pods are deleted and the round ends once they are gone. The
 * systems alternate within each round; the nodes' RSS and CPU are read beside each round, and
 * optionally both idle with N pods.
 *
 *   bun scripts/bench-cluster.ts [--pods 1,10,30,100] [--rounds 3] [--systems bunlet,kubelet]
 *                                [--idle-pods 100 --idle-seconds 60] [--timeout 300]
 *                                [--bunlet-env "BUN_OPTIONS=--cpu-prof --cpu-prof-dir=/tmp/prof"]
 *
 * Needs what scripts/bench-startup.ts needs, and the upstream binaries (scripts/k8s/build.sh,
 * scripts/k8s/build.sh kubelet). Not a test: it asserts nothing about speed.
 */
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { createApiClient, loadKubeconfig } from "../src/apiclient/index.ts";
import { delay, realClock } from "../src/lib/index.ts";
import { startTestCluster, type TestCluster } from "../test/harness/cluster.ts";
import { startTestContainerd } from "../test/harness/containerd.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, REPO_ROOT } from "../test/harness/images.ts";
import type { AgentSystem } from "./lib/bench-agent.ts";
import { createBunletSystem } from "./lib/bench-bunlet.ts";
import { clusterRound, createNamespace, removeClusterPods, startClusterPods, waitNodeReady, type ClusterNode, type ClusterPods } from "./lib/bench-cluster-pods.ts";
import { median, processCpuSeconds, processMemory, REQUEST_TIMEOUT_MS } from "./lib/bench-common.ts";
import { createKubeletSystem } from "./lib/bench-kubelet.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** `--bunlet-env "K=V;K2=V2"`: extra environment for bunlet only (a profiler, a JSC option). */
function bunletEnv(): Record<string, string> | undefined {
  const spec = arg("bunlet-env", "");
  if (!spec) return undefined;
  return Object.fromEntries(spec.split(";").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

const podCounts = arg("pods", "1,10,30,100").split(",").map(Number);
const rounds = Number(arg("rounds", "3"));
const wanted = arg("systems", "bunlet,kubelet").split(",");
const timeoutMs = Number(arg("timeout", "300")) * 1000;
const idlePods = Number(arg("idle-pods", "0"));
const idleSeconds = Number(arg("idle-seconds", "60"));
if (podCounts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1 || wanted.some((s) => !["bunlet", "kubelet"].includes(s))) {
  console.error("usage: bun scripts/bench-cluster.ts [--pods 1,10,30,100] [--rounds 3] [--systems bunlet,kubelet] [--idle-pods N --idle-seconds 60] [--timeout 300]");
  process.exit(2);
}

// Room for the largest set of pods on the node at once (the default 110 at least), as bench-targets gives.
const maxPods = `--max-pods=${Math.max(110, ...podCounts, idlePods) + 1}`;

const shutdown = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    console.error(`bench-cluster: ${sig}: stopping after cleanup`);
    shutdown.abort(new Error(`received ${sig}`));
  });
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Node extends ClusterNode {
  key: "bunlet" | "kubelet";
  system: AgentSystem;
  ms: Map<number, number[]>;
  rss: Map<number, number[]>;
  cpu: Map<number, number[]>;
  idle?: { rssStartMiB: number; rssEndMiB: number; cores: number };
  failed?: string;
}

const push = (m: Map<number, number[]>, n: number, x: number) => m.set(n, [...(m.get(n) ?? []), x]);

/** The agent's requests to the apiserver so far by verb, from its own rest_client_requests_total. */
async function apiRequests(port: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(() => undefined);
  if (!res?.ok) return out;
  for (const line of (await res.text()).split("\n")) {
    const m = /^rest_client_requests_total\{[^}]*method="(\w+)"[^}]*\} ([\d.e+]+)$/.exec(line);
    if (m) out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return out;
}
const requestsBetween = (a: Map<string, number>, b: Map<string, number>) =>
  [...b].map(([verb, n]) => [verb, n - (a.get(verb) ?? 0)] as const).filter(([, n]) => n > 0).map(([verb, n]) => `${verb} ${n}`).join(", ") || "none";

let cluster: TestCluster | undefined;
const nodes: Node[] = [];
const loadStart = loadavg()[0]!.toFixed(2);
try {
  await ensureImages();
  cluster = await startTestCluster({ name: "bench" });
  const api = createApiClient(loadKubeconfig(cluster.adminKubeconfig), { qps: 0, timeoutMs: 60_000, signal: shutdown.signal });
  const ctx: ClusterPods = { api, signal: shutdown.signal, timeoutMs };
  for (const key of wanted as Node["key"][]) {
    const name = `bench-${key}`;
    const kubeconfig = await cluster.nodeKubeconfig(name);
    const system =
      key === "bunlet"
        ? createBunletSystem({
            binary: resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`)),
            images: [BUSYBOX_TAR, PAUSE_TAR],
            logFile: `${REPO_ROOT}/.bench/cluster/bunlet.log`,
            timeoutMs,
            nodeName: name,
            flags: [`--kubeconfig=${kubeconfig}`, maxPods],
            env: bunletEnv(),
          })
        : createKubeletSystem({
            binary: resolve(arg("kubelet", "/var/cache/bunlet-k8s/v1.37.2/kubelet")),
            start: () => startTestContainerd({ name: "bench-cluster-kubelet" }),
            logFile: `${REPO_ROOT}/.bench/cluster/kubelet.log`,
            timeoutMs,
            nodeName: name,
            flags: [`--kubeconfig=${kubeconfig}`, maxPods],
          });
    const node: Node = { key, name, namespace: `bench-${key}`, system, ms: new Map(), rss: new Map(), cpu: new Map() };
    nodes.push(node);
    try {
      await system.setup(shutdown.signal);
      await waitNodeReady(ctx, name);
      await createNamespace(ctx, node.namespace);
      // One untimed pod first: the first sandbox on a node pays for cold caches and CNI setup.
      await clusterRound(ctx, node, 1, "warmup");
    } catch (err) {
      if (shutdown.signal.aborted) throw err;
      node.failed = `setup failed: ${errorText(err)}`;
      console.error(`bench-cluster: ${name}: ${node.failed}`);
    }
  }
  const live = () => nodes.filter((n) => !n.failed);
  for (const n of podCounts) {
    for (let r = 0; r < rounds; r++) {
      // Alternate which node goes first, so neither always runs right after the other's teardown.
      const order = r % 2 === 0 ? live() : [...live()].reverse();
      for (const node of order) {
        try {
          const pid = node.system.agent().pid;
          const cpu0 = processCpuSeconds(pid);
          const requests0 = await apiRequests(node.system.agent().readOnlyPort);
          const ms = await clusterRound(ctx, node, n, `n${n}-r${r}`);
          const requests = requestsBetween(requests0, await apiRequests(node.system.agent().readOnlyPort));
          push(node.ms, n, ms);
          const mem = processMemory(pid);
          if (mem) push(node.rss, n, mem.rssMiB);
          const cpu1 = processCpuSeconds(pid);
          if (cpu0 !== undefined && cpu1 !== undefined) push(node.cpu, n, cpu1 - cpu0);
          console.error(`bench-cluster: ${node.name}: ${n} pods, round ${r + 1}/${rounds}: ${ms.toFixed(0)} ms (RSS after ${mem?.rssMiB.toFixed(1)} MiB; API requests ${requests})`);
        } catch (err) {
          if (shutdown.signal.aborted) throw err;
          node.failed = `${n} pods, round ${r + 1} failed: ${errorText(err)}`;
          console.error(`bench-cluster: ${node.name}: ${node.failed}`);
        }
      }
    }
  }
  if (idlePods > 0) {
    for (const node of live()) {
      const tag = "idle";
      try {
        await startClusterPods(ctx, node, idlePods, tag);
        await delay(realClock, 5_000, shutdown.signal);
        const pid = node.system.agent().pid;
        const rssStart = processMemory(pid)!.rssMiB;
        const cpu0 = processCpuSeconds(pid)!;
        await delay(realClock, idleSeconds * 1000, shutdown.signal);
        node.idle = { rssStartMiB: rssStart, rssEndMiB: processMemory(pid)!.rssMiB, cores: (processCpuSeconds(pid)! - cpu0) / idleSeconds };
        console.error(`bench-cluster: ${node.name}: idle with ${idlePods} pods: RSS ${node.idle.rssStartMiB.toFixed(1)} → ${node.idle.rssEndMiB.toFixed(1)} MiB, CPU ${node.idle.cores.toFixed(4)} cores`);
      } catch (err) {
        if (shutdown.signal.aborted) throw err;
        node.failed = `idle run failed: ${errorText(err)}`;
        console.error(`bench-cluster: ${node.name}: ${node.failed}`);
      } finally {
        await removeClusterPods(ctx, node, idlePods, tag).catch(() => {});
      }
    }
  }
  printTable();
} catch (err) {
  console.error(`bench-cluster: ${errorText(err)}`);
  process.exitCode = 1;
} finally {
  for (const node of nodes) await node.system.teardown().catch((err) => console.error(`bench-cluster: ${node.name}: cleanup failed: ${errorText(err)}`));
  await cluster?.stop().catch((err) => console.error(`bench-cluster: cluster cleanup failed: ${errorText(err)}`));
}

function printTable(): void {
  const med = (m: Map<number, number[]>, n: number) => {
    const xs = m.get(n);
    return xs && xs.length === rounds ? median(xs) : undefined;
  };
  const [a, b] = [nodes.find((n) => n.key === "bunlet"), nodes.find((n) => n.key === "kubelet")];
  const cell = (node: Node | undefined, n: number) => (node ? (med(node.ms, n)?.toFixed(0) ?? (node.failed ? "failed (below)" : "-")) : "not selected");
  const cost = (node: Node | undefined, n: number) => {
    const rss = node && med(node.rss, n);
    const cpu = node && med(node.cpu, n);
    return rss === undefined || cpu === undefined ? "-" : `${rss.toFixed(0)} / ${cpu.toFixed(2)}`;
  };
  const loadEnd = loadavg()[0]!.toFixed(2);
  console.log(`\nCluster pod start-up: pods created with nodeName → all Running and Ready in the apiserver, median of ${rounds} round(s)`);
  console.log(`(${cpus().length} CPUs; load average at start ${loadStart}, at end ${loadEnd})`);
  console.log("N | bunlet ms | kubelet ms | bunlet/kubelet | bunlet RSS MiB / CPU s | kubelet RSS MiB / CPU s");
  console.log("---|---|---|---|---|---");
  for (const n of podCounts) {
    const x = a && med(a.ms, n);
    const y = b && med(b.ms, n);
    console.log(`${n} | ${cell(a, n)} | ${cell(b, n)} | ${x !== undefined && y !== undefined ? (x / y).toFixed(2) : "-"} | ${cost(a, n)} | ${cost(b, n)}`);
  }
  const idlers = nodes.filter((n) => n.idle);
  if (idlers.length > 0) {
    console.log(`\nIdle with ${idlePods} cluster pods (RSS once running, after ${idleSeconds} s idle, mean CPU)`);
    console.log("agent | RSS start MiB | RSS end MiB | CPU cores");
    console.log("---|---|---|---");
    for (const node of idlers) console.log(`${node.key} | ${node.idle!.rssStartMiB.toFixed(1)} | ${node.idle!.rssEndMiB.toFixed(1)} | ${node.idle!.cores.toFixed(4)}`);
  }
  for (const node of nodes) for (const note of node.system.notes?.() ?? []) console.log(note);
  const meta = { when: new Date().toISOString(), rounds, cpus: cpus().length, loadStart: Number(loadStart), loadEnd: Number(loadEnd) };
  for (const n of podCounts) {
    const row: Record<string, unknown> = { bench: "cluster", n, ...meta };
    for (const node of nodes) {
      const ms = med(node.ms, n);
      if (ms !== undefined) row[`${node.key}Ms`] = Math.round(ms);
      const rss = med(node.rss, n);
      if (rss !== undefined) row[`${node.key}RssMiB`] = Number(rss.toFixed(1));
      const cpu = med(node.cpu, n);
      if (cpu !== undefined) row[`${node.key}CpuSeconds`] = Number(cpu.toFixed(2));
    }
    console.log(JSON.stringify(row));
  }
  for (const node of idlers) console.log(JSON.stringify({ bench: "cluster-idle", agent: node.key, pods: idlePods, seconds: idleSeconds, ...meta, ...node.idle }));
  for (const node of nodes) {
    if (node.failed) {
      console.log(`${node.name}: ${node.failed.split("\n")[0]}`);
      process.exitCode = 1;
    }
  }
}
