/**
 * Every row of issue 30's targets table in one run, bunlet beside the upstream kubelet 1.37.2, each
 * on a containerd of its own (bunlet's embedded one; a test containerd for the kubelet):
 *
 *   1. standalone, static pods: 100 pods started by bunlet, then by the kubelet (the bursts never
 *      overlap), both held idle at once, deleted; then the same with 250 pods;
 *   2. both as nodes of one local control plane: 100 pods through the apiserver (start-up and CPU),
 *      then 250 pods held idle at once, deleted.
 *
 * Per burst: start-up (written/created → every container running; in the cluster, Running and
 * Ready in the apiserver), the agent's CPU for it and its RSS right after; per hold: RSS and
 * anonymous memory after it, mean CPU over it, and the mean PLEG relist and status sync times
 * (the agents' own histograms, kubelet_pleg_relist_duration_seconds and
 * kubelet_pod_status_sync_duration_seconds, over the burst and the hold). Prints one table
 * (scripts/lib/bench-targets-table.ts) and a JSON line of every figure.
 *
 *   bun scripts/bench-targets.ts [--idle-seconds 600] [--pods 100,250] [--timeout 600] [--phases static,cluster] [--bunlet dist/bunlet] [--kubelet PATH]
 *
 * `--phases cluster` runs phase 2 alone (its rows beside a static run's that a loaded machine cut short).
 * With --idle-seconds 600 the run takes about 50 minutes (three holds of 10 minutes); run it under
 * the bench lock. Needs what bench-startup.ts and bench-cluster.ts need.
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
import { clusterRound, createNamespace, removeClusterPods, startClusterPods, waitNodeReady, type ClusterPods } from "./lib/bench-cluster-pods.ts";
import { podSet, processCpuSeconds, processMemory, REQUEST_TIMEOUT_MS } from "./lib/bench-common.ts";
import { createKubeletSystem } from "./lib/bench-kubelet.ts";
import { targetsTable, type AgentFigures, type Burst, type Hold } from "./lib/bench-targets-table.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const idleSeconds = Number(arg("idle-seconds", "600"));
const [small, large] = arg("pods", "100,250").split(",").map(Number) as [number, number];
const timeoutMs = Number(arg("timeout", "600")) * 1000;
const bunletBinary = resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`));
const kubeletBinary = resolve(arg("kubelet", "/var/cache/bunlet-k8s/v1.37.2/kubelet"));
const phases = new Set(arg("phases", "static,cluster").split(","));
if (!(idleSeconds > 0) || !(small > 0) || !(large > 0) || !(timeoutMs > 0) || [...phases].some((p) => p !== "static" && p !== "cluster")) {
  console.error("usage: bun scripts/bench-targets.ts [--idle-seconds 600] [--pods 100,250] [--timeout 600] [--phases static,cluster] [--bunlet dist/bunlet] [--kubelet PATH]");
  process.exit(2);
}
const maxPods = `--max-pods=${Math.max(110, large + 1)}`;

const shutdown = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    console.error(`bench-targets: ${sig}: stopping after cleanup`);
    shutdown.abort(new Error(`received ${sig}`));
  });
}
const signal = shutdown.signal;
const say = (msg: string) => console.error(`bench-targets ${new Date().toISOString().slice(11, 19)}: ${msg}`);

type Key = "bunlet" | "kubelet";
const figures: Record<Key, AgentFigures> = { bunlet: {}, kubelet: {} };

/** The sum and count of a histogram family over all its series, from the agent's /metrics. */
async function histogram(port: number, name: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text();
  let sum = 0;
  let count = 0;
  for (const line of text.split("\n")) {
    const m = /^(\w+?)_(sum|count)(?:\{[^}]*\})? ([\d.e+-]+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if (m[2] === "sum") sum += Number(m[3]);
    else count += Number(m[3]);
  }
  return { sum, count };
}

interface Mark {
  cpu: number;
  relist: { sum: number; count: number };
  statusSync: { sum: number; count: number };
}
async function mark(system: AgentSystem): Promise<Mark> {
  const { pid, readOnlyPort } = system.agent();
  return {
    cpu: processCpuSeconds(pid)!,
    relist: await histogram(readOnlyPort, "kubelet_pleg_relist_duration_seconds"),
    statusSync: await histogram(readOnlyPort, "kubelet_pod_status_sync_duration_seconds"),
  };
}
const meanMs = (a: { sum: number; count: number }, b: { sum: number; count: number }) => (b.count > a.count ? ((b.sum - a.sum) / (b.count - a.count)) * 1000 : undefined);

/**
 * Both agents' pods held idle at once: the CPU over `idleSeconds` from 5 s after the later burst,
 * and RSS at the end; relist and status sync means from each agent's mark before its burst.
 */
async function hold(agents: { key: Key; system: AgentSystem; before: Mark }[]): Promise<Map<Key, Hold>> {
  await delay(realClock, 5_000, signal);
  const starts = await Promise.all(agents.map((a) => mark(a.system)));
  say(`holding ${agents.map((a) => a.key).join(" and ")} idle for ${idleSeconds} s`);
  // Both agents' RSS is a sawtooth at rest (their collectors): besides the reading at the end, a
  // mean over the hold's second half, read every 5 s.
  const samples = agents.map(() => [] as number[]);
  const halfway = Date.now() + (idleSeconds * 1000) / 2;
  const sampler = setInterval(() => {
    if (Date.now() < halfway) return;
    for (const [i, a] of agents.entries()) {
      const mem = processMemory(a.system.agent().pid);
      if (mem) samples[i]!.push(mem.rssMiB);
    }
  }, 5_000);
  await delay(realClock, idleSeconds * 1000, signal).finally(() => clearInterval(sampler));
  const out = new Map<Key, Hold>();
  for (const [i, a] of agents.entries()) {
    a.system.agent().alive("while idling");
    // Memory first: the closing mark scrapes /metrics, which allocates (a few MiB in either agent).
    const mem = processMemory(a.system.agent().pid)!;
    const end = await mark(a.system);
    out.set(a.key, {
      rssIdleMiB: mem.rssMiB,
      anonIdleMiB: mem.anonMiB,
      rssMeanMiB: samples[i]!.length > 0 ? samples[i]!.reduce((x, y) => x + y, 0) / samples[i]!.length : undefined,
      idleCores: (end.cpu - starts[i]!.cpu) / idleSeconds,
      relistMs: meanMs(a.before.relist, end.relist),
      statusSyncMs: meanMs(a.before.statusSync, end.statusSync),
    });
    say(`${a.key}: after the hold RSS ${mem.rssMiB.toFixed(1)} MiB (anonymous ${mem.anonMiB.toFixed(1)}; mean over its second half ${out.get(a.key)!.rssMeanMiB?.toFixed(1) ?? "-"}), ${out.get(a.key)!.idleCores.toFixed(4)} cores`);
  }
  return out;
}

/** Phase 1: both agents standalone, static pods; `ready` is the control plane starting meanwhile. */
async function staticPhase(ready: Promise<unknown>): Promise<void> {
  const systems: Record<Key, AgentSystem> = {
    bunlet: createBunletSystem({ binary: bunletBinary, images: [BUSYBOX_TAR, PAUSE_TAR], logFile: `${REPO_ROOT}/.bench/targets/bunlet-static.log`, timeoutMs, flags: [maxPods] }),
    kubelet: createKubeletSystem({ binary: kubeletBinary, start: () => startTestContainerd({ name: "bench-targets-kubelet" }), logFile: `${REPO_ROOT}/.bench/targets/kubelet-static.log`, timeoutMs, flags: [maxPods] }),
  };
  const keys: Key[] = ["bunlet", "kubelet"];
  try {
    for (const key of keys) {
      say(`${key}: starting (standalone)`);
      await systems[key].setup(signal);
      // One untimed pod first, so no figure pays for a cold page cache or a first CNI setup.
      await systems[key].round(podSet(1, "warmup"), signal);
      figures[key].rss0 = processMemory(systems[key].agent().pid)!.rssMiB;
    }
    // The control plane's own start (CPU-heavy for a minute) must not fall on either burst.
    await ready.catch(() => {});
    say("control plane up; the static bursts begin");
    for (const [n, slot] of [[small, "staticSmall"], [large, "staticLarge"]] as const) {
      const pods = podSet(n, `static-${n}`);
      const before = new Map<Key, Mark>();
      const bursts = new Map<Key, Burst>();
      for (const key of keys) {
        before.set(key, await mark(systems[key]));
        const b = await systems[key].startPods(pods, signal);
        bursts.set(key, b);
        say(`${key}: ${n} static pods running in ${b.ms.toFixed(0)} ms, CPU ${b.cpuSeconds.toFixed(2)} s, RSS ${b.rssMiB.toFixed(1)} MiB`);
      }
      const held = await hold(keys.map((key) => ({ key, system: systems[key], before: before.get(key)! })));
      for (const key of keys) figures[key][slot] = { ...bursts.get(key)!, ...held.get(key)! };
      for (const key of keys) await systems[key].removePods(pods, signal);
    }
  } finally {
    for (const key of keys) await systems[key].teardown().catch((err) => say(`${key}: cleanup failed: ${String(err)}`));
  }
}

/** Torn down after the table is printed, so the figures do not wait for it. */
const cleanups: (() => Promise<void>)[] = [];

/** Phase 2: both agents as nodes of one control plane (started during phase 1), pods through the apiserver. */
async function clusterPhase(starting: Promise<TestCluster>): Promise<void> {
  const nodes: { key: Key; name: string; namespace: string; system: AgentSystem }[] = [];
  cleanups.push(async () => {
    for (const node of nodes) await node.system.teardown().catch((err) => say(`${node.key}: cleanup failed: ${String(err)}`));
  });
  const cluster = await starting;
  const api = createApiClient(loadKubeconfig(cluster.adminKubeconfig), { qps: 0, timeoutMs: 60_000, signal });
  const ctx: ClusterPods = { api, signal, timeoutMs };
  for (const key of ["bunlet", "kubelet"] as const) {
    const name = `targets-${key}`;
    const flags = [`--kubeconfig=${await cluster.nodeKubeconfig(name)}`, maxPods];
    const logFile = `${REPO_ROOT}/.bench/targets/${key}-cluster.log`;
    const system =
      key === "bunlet"
        ? createBunletSystem({ binary: bunletBinary, images: [BUSYBOX_TAR, PAUSE_TAR], logFile, timeoutMs, nodeName: name, flags })
        : createKubeletSystem({ binary: kubeletBinary, start: () => startTestContainerd({ name: "bench-targets-cluster-kubelet" }), logFile, timeoutMs, nodeName: name, flags });
    const node = { key, name, namespace: `targets-${key}`, system };
    nodes.push(node);
    say(`${key}: starting as node ${name}`);
    await system.setup(signal);
    await waitNodeReady(ctx, name);
    await createNamespace(ctx, node.namespace);
    await clusterRound(ctx, node, 1, "warmup");
  }
  for (const node of nodes) {
    const cpu0 = processCpuSeconds(node.system.agent().pid)!;
    const ms = await startClusterPods(ctx, node, small, `cluster-${small}`);
    const cpu = processCpuSeconds(node.system.agent().pid)! - cpu0;
    const mem = processMemory(node.system.agent().pid)!;
    figures[node.key].clusterSmall = { ms, cpuSeconds: cpu, rssMiB: mem.rssMiB, anonMiB: mem.anonMiB };
    say(`${node.key}: ${small} cluster pods Running and Ready in ${ms.toFixed(0)} ms, CPU ${cpu.toFixed(2)} s`);
    await removeClusterPods(ctx, node, small, `cluster-${small}`);
  }
  const before = new Map<Key, Mark>();
  const bursts = new Map<Key, Burst>();
  for (const node of nodes) {
    const m = await mark(node.system);
    before.set(node.key, m);
    const ms = await startClusterPods(ctx, node, large, `cluster-${large}`);
    const mem = processMemory(node.system.agent().pid)!;
    bursts.set(node.key, { ms, cpuSeconds: processCpuSeconds(node.system.agent().pid)! - m.cpu, rssMiB: mem.rssMiB, anonMiB: mem.anonMiB });
    say(`${node.key}: ${large} cluster pods Running and Ready in ${ms.toFixed(0)} ms, CPU ${bursts.get(node.key)!.cpuSeconds.toFixed(2)} s`);
  }
  const held = await hold(nodes.map((n) => ({ key: n.key, system: n.system, before: before.get(n.key)! })));
  for (const node of nodes) figures[node.key].clusterLarge = { ...bursts.get(node.key)!, ...held.get(node.key)! };
  for (const node of nodes) await removeClusterPods(ctx, node, large, `cluster-${large}`);
}

const loadStart = loadavg().map((l) => l.toFixed(2)).join(" ");
const when = new Date().toISOString();
const t0 = performance.now();
// The control plane starts while phase 1 sets up (its start is not measured; its rest costs both agents alike).
say("starting the control plane");
const starting = startTestCluster({ name: "bench-targets" });
// Awaited by phase 2; a failure there says so, not an unhandled rejection before it.
starting.catch(() => {});
cleanups.push(async () => {
  const cluster = await starting.catch(() => undefined);
  await cluster?.stop().catch((err) => say(`cluster cleanup failed: ${String(err)}`));
});
try {
  await ensureImages();
  for (const [name, phase] of [["static", staticPhase], ["cluster", clusterPhase]] as const) {
    if (!phases.has(name)) continue;
    await phase(starting).catch((err) => {
      if (signal.aborted) throw err;
      say(`the ${name} phase failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    });
  }
} finally {
  const loadEnd = loadavg().map((l) => l.toFixed(2)).join(" ");
  console.log(`\n${targetsTable(figures.bunlet, figures.kubelet, { idleSeconds, pods: [small, large], loadStart, loadEnd, when })}`);
  console.log(`(${cpus().length} CPUs; ${small} and ${large} pods; the run took ${((performance.now() - t0) / 60_000).toFixed(1)} min)`);
  console.log(JSON.stringify({ bench: "targets", when, idleSeconds, pods: [small, large], loadStart, loadEnd, ...figures }));
  for (const cleanup of cleanups.reverse()) await cleanup();
}
