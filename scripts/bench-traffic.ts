/**
 * Idle cost of a cluster node (the autonomy issue, item 4): the bytes a node agent exchanges with
 * the apiserver, and the bytes it writes to disk itself, while its pods sit idle. One local
 * control plane (scripts/cluster.sh); each agent (bunlet, the upstream kubelet) joins it as a node
 * of its own through a byte-counting TCP proxy in front of the apiserver (TLS passes through
 * untouched), runs the same pods (N sleepers, one with a ConfigMap volume and one with a Secret in
 * its env), and is measured over the same idle window: bytes each way through its proxy, and the
 * growth of `write_bytes` in its /proc/<pid>/io (what it sent to the storage layer: its logs,
 * checkpoints and state files; not its containers' logs, which containerd writes).
 *
 *   bun scripts/bench-traffic.ts [--seconds 180] [--pods 5] [--systems bunlet,kubelet]
 *
 * Needs the upstream binaries (scripts/k8s/build.sh, and scripts/k8s/build.sh kubelet for the
 * kubelet column) and dist/bunlet. Not a test: it prints figures and asserts nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { createApiClient, loadKubeconfig, type ApiClient } from "../src/apiclient/index.ts";
import { delay, realClock } from "../src/lib/index.ts";
import { startTestCluster, type TestCluster } from "../test/harness/cluster.ts";
import { startTestContainerd } from "../test/harness/containerd.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, REPO_ROOT } from "../test/harness/images.ts";
import type { AgentSystem } from "./lib/bench-agent.ts";
import { createBunletSystem } from "./lib/bench-bunlet.ts";
import { BUSYBOX_IMAGE, COMMAND, CONTAINER_NAME, GRACE_SECONDS } from "./lib/bench-common.ts";
import { createKubeletSystem } from "./lib/bench-kubelet.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const seconds = Number(arg("seconds", "180"));
const podCount = Number(arg("pods", "5"));
const wanted = arg("systems", "bunlet,kubelet").split(",");
if (!Number.isInteger(seconds) || seconds < 10 || !Number.isInteger(podCount) || podCount < 2 || wanted.some((s) => !["bunlet", "kubelet"].includes(s))) {
  console.error("usage: bun scripts/bench-traffic.ts [--seconds 180 (≥10)] [--pods 5 (≥2)] [--systems bunlet,kubelet]");
  process.exit(2);
}

const shutdown = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => shutdown.abort(new Error(`received ${sig}`)));
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
const TIMEOUT_MS = 180_000;

/** A TCP proxy to the apiserver that counts the bytes each way. */
interface CountingProxy {
  /** Every chunk since the last reset: connection number, ms since the reset, direction, bytes (TLS records, so sizes only). */
  chunks: { conn: number; ms: number; dir: "up" | "down"; bytes: number }[];
  port: number;
  up: number;
  down: number;
  /** TCP connections the agent opened. */
  connections: number;
  reset(): void;
  close(): void;
}

function startProxy(host: string, targetPort: number): Promise<CountingProxy> {
  const sockets = new Set<import("node:net").Socket>();
  const counts = { up: 0, down: 0, connections: 0 };
  let chunks: CountingProxy["chunks"] = [];
  let since = performance.now();
  let serial = 0;
  const server: Server = createServer((client) => {
    counts.connections++;
    const conn = ++serial;
    const upstream = createConnection({ host, port: targetPort });
    sockets.add(client).add(upstream);
    client.on("data", (b) => {
      counts.up += b.length;
      chunks.push({ conn, ms: Math.round(performance.now() - since), dir: "up", bytes: b.length });
      upstream.write(b);
    });
    upstream.on("data", (b) => {
      counts.down += b.length;
      chunks.push({ conn, ms: Math.round(performance.now() - since), dir: "down", bytes: b.length });
      client.write(b);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  return new Promise((resolveProxy, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("the proxy has no TCP address"));
      resolveProxy({
        port: address.port,
        get up() {
          return counts.up;
        },
        get down() {
          return counts.down;
        },
        get connections() {
          return counts.connections;
        },
        get chunks() {
          return chunks;
        },
        reset() {
          chunks = [];
          since = performance.now();
          counts.up = 0;
          counts.down = 0;
          counts.connections = 0;
        },
        close() {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    });
  });
}

/** The bytes the process has sent to the storage layer (/proc/<pid>/io write_bytes). */
function writeBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("write_bytes:"));
  if (line === undefined) throw new Error(`/proc/${pid}/io has no write_bytes`);
  return Number(line.split(/\s+/)[1]);
}

async function pollUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + TIMEOUT_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${TIMEOUT_MS / 1000}s waiting for ${what}`);
    await delay(realClock, 500, shutdown.signal);
  }
}

/** The idle pods: sleepers, the first with a ConfigMap volume, the second with a Secret in its env. */
function pods(nodeName: string, namespace: string): Record<string, unknown>[] {
  return Array.from({ length: podCount }, (_, i) => {
    const container: Record<string, unknown> = { name: CONTAINER_NAME, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: COMMAND };
    const spec: Record<string, unknown> = { nodeName, terminationGracePeriodSeconds: GRACE_SECONDS, automountServiceAccountToken: false, tolerations: [{ operator: "Exists" }], containers: [container] };
    if (i === 0) {
      spec.volumes = [{ name: "config", configMap: { name: "idle-config" } }];
      container.volumeMounts = [{ name: "config", mountPath: "/config" }];
    }
    if (i === 1) container.env = [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "idle-secret", key: "token" } } }];
    return { apiVersion: "v1", kind: "Pod", metadata: { name: `idle-${i}`, namespace }, spec };
  });
}

interface Result {
  key: string;
  up: number;
  down: number;
  diskBytes: number;
  /** New TCP connections to the apiserver during the window. */
  connections: number;
  /** The apiserver's request counts that grew during the window, by verb and resource. */
  requests: Map<string, number>;
}

/**
 * apiserver_request_total summed by verb, resource and subresource. Every client of the
 * apiserver counts (the controllers' and the scheduler's leader-election Lease updates too), so
 * the same background shows in both agents' windows.
 */
async function requestCounts(cluster: TestCluster): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const metrics = await cluster.kubectl(["get", "--raw", "/metrics"]);
  for (const line of metrics.stdout.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const label = (name: string) => line.match(new RegExp(`[{,]${name}="([^"]*)"`))?.[1] ?? "";
    const key = `${label("verb")} ${label("resource")}${label("subresource") ? `/${label("subresource")}` : ""}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return out;
}

async function measure(api: ApiClient, cluster: TestCluster, key: "bunlet" | "kubelet"): Promise<Result> {
  const name = `traffic-${key}`;
  const namespace = `traffic-${key}`;
  const server = new URL(cluster.server);
  const proxy = await startProxy(server.hostname, Number(server.port));
  // The node's kubeconfig, pointed at the proxy (same host, so the serving certificate still fits).
  const kubeconfig = await cluster.nodeKubeconfig(name);
  const proxied = `${kubeconfig}.proxied`;
  writeFileSync(proxied, readFileSync(kubeconfig, "utf8").replaceAll(cluster.server, `https://${server.hostname}:${proxy.port}`));
  const system: AgentSystem =
    key === "bunlet"
      ? createBunletSystem({ binary: resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`)), images: [BUSYBOX_TAR, PAUSE_TAR], logFile: `${REPO_ROOT}/.bench/traffic/bunlet.log`, timeoutMs: TIMEOUT_MS, nodeName: name, flags: [`--kubeconfig=${proxied}`] })
      : createKubeletSystem({
          binary: resolve(arg("kubelet", "/var/cache/bunlet-k8s/v1.37.2/kubelet")),
          start: () => startTestContainerd({ name: "bench-traffic-kubelet" }),
          logFile: `${REPO_ROOT}/.bench/traffic/kubelet.log`,
          timeoutMs: TIMEOUT_MS,
          nodeName: name,
          flags: [`--kubeconfig=${proxied}`],
        });
  try {
    await system.setup(shutdown.signal);
    await pollUntil(`node ${name} Ready`, async () => {
      const n = await api.get<{ status?: { conditions?: { type: string; status: string }[] } }>(`/api/v1/nodes/${name}`).catch(() => undefined);
      return n?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
    });
    await api.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await pollUntil(`the default ServiceAccount of ${namespace}`, async () => api.get(`/api/v1/namespaces/${namespace}/serviceaccounts/default`).then(() => true, () => false));
    await api.create(`/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "idle-config" }, data: { "app.conf": "level=info\n" } });
    await api.create(`/api/v1/namespaces/${namespace}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name: "idle-secret" }, stringData: { token: "s3cret" } });
    for (const pod of pods(name, namespace)) await api.create(`/api/v1/namespaces/${namespace}/pods`, pod);
    await pollUntil(`${podCount} pods Running and Ready on ${name}`, async () => {
      const list = await api.list<{ status?: { phase?: string; containerStatuses?: { ready?: boolean }[] } }>(`/api/v1/namespaces/${namespace}/pods`);
      return list.items.filter((p) => p.status?.phase === "Running" && p.status.containerStatuses?.every((c) => c.ready)).length === podCount;
    });
    // The start-up's tail (the last status patches, the first full status resync) is not idling.
    await delay(realClock, 30_000, shutdown.signal);
    const pid = system.agent().pid;
    const requests0 = await requestCounts(cluster);
    proxy.reset();
    const disk0 = writeBytes(pid);
    await delay(realClock, seconds * 1000, shutdown.signal);
    system.agent().alive("while idling");
    // Per connection, the chunk sizes in order: which exchange costs what (the sizes are TLS records').
    writeFileSync(`${REPO_ROOT}/.bench/traffic/${key}-chunks.txt`, proxy.chunks.map((c) => `${c.conn} ${c.ms} ${c.dir} ${c.bytes}`).join("\n") + "\n");
    const result = { key, up: proxy.up, down: proxy.down, connections: proxy.connections, diskBytes: writeBytes(pid) - disk0, requests: new Map<string, number>() };
    for (const [what, n] of await requestCounts(cluster)) if (n > (requests0.get(what) ?? 0)) result.requests.set(what, n - (requests0.get(what) ?? 0));
    console.error(`bench-traffic: ${key}: ${result.up} bytes up, ${result.down} down over ${result.connections} new connection(s), ${result.diskBytes} bytes written to disk in ${seconds} s`);
    return result;
  } finally {
    await api.delete(`/api/v1/namespaces/${namespace}`).catch(() => {});
    await system.teardown().catch((err) => console.error(`bench-traffic: ${key}: cleanup failed: ${errorText(err)}`));
    proxy.close();
  }
}

let cluster: TestCluster | undefined;
const results: Result[] = [];
const loadStart = loadavg()[0]!.toFixed(2);
try {
  await ensureImages();
  cluster = await startTestCluster({ name: "traffic" });
  const api = createApiClient(loadKubeconfig(cluster.adminKubeconfig), { qps: 0, timeoutMs: 60_000, signal: shutdown.signal });
  for (const key of wanted as ("bunlet" | "kubelet")[]) {
    try {
      results.push(await measure(api, cluster, key));
    } catch (err) {
      if (shutdown.signal.aborted) throw err;
      console.error(`bench-traffic: ${key} failed: ${errorText(err)}`);
    }
  }
  printTable();
} catch (err) {
  console.error(`bench-traffic: ${errorText(err)}`);
  process.exitCode = 1;
} finally {
  await cluster?.stop().catch((err) => console.error(`bench-traffic: cluster cleanup failed: ${errorText(err)}`));
}

function printTable(): void {
  const perDay = (bytes: number) => ((bytes * 86_400) / seconds / 1e6).toFixed(1);
  const perHour = (bytes: number) => ((bytes * 3_600) / seconds / 1e3).toFixed(0);
  const kubelet = results.find((r) => r.key === "kubelet");
  console.log(`\nIdle node, ${podCount} pods (one ConfigMap volume, one Secret env), ${seconds} s measured after a 30 s settle`);
  console.log(`(${cpus().length} CPUs; load average at start ${loadStart}, at end ${loadavg()[0]!.toFixed(2)})`);
  console.log("agent | API bytes up | API bytes down | total | MB/day | vs kubelet | new connections | disk writes kB/hour | vs kubelet");
  console.log("---|---|---|---|---|---|---|---|---");
  for (const r of results) {
    const total = r.up + r.down;
    const ratio = kubelet ? (total / (kubelet.up + kubelet.down)).toFixed(2) : "-";
    const diskRatio = kubelet && kubelet.diskBytes > 0 ? (r.diskBytes / kubelet.diskBytes).toFixed(2) : "-";
    console.log(`${r.key} | ${r.up} | ${r.down} | ${total} | ${perDay(total)} | ${ratio} | ${r.connections} | ${perHour(r.diskBytes)} | ${diskRatio}`);
  }
  console.log("\nRequests the apiserver served during each window (every client; the control plane's own Lease renewals show in both)");
  for (const r of results) console.log(`${r.key}: ${[...r.requests].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${what} ${n}`).join(", ")}`);
}
