/**
 * Init-container and restart benchmark (issue 17, item 3): bunlet and the upstream kubelet, each
 * on containerd 1.6 (no container events: both relist) and 1.7 (events: bunlet's evented PLEG,
 * the kubelet with its EventedPLEG gate on), same static pods:
 *
 *  - init: one init container (`true`) then the sleeper; manifest written → sleeper RUNNING, as
 *    seen through CRI (polled every 20 ms).
 *  - restart: a container that exits 1 after 2 s, restartPolicy Always; its first exit → its
 *    restart, from the runtime's own timestamps (attempt 0's finishedAt → attempt 1's startedAt).
 *    The first restart has no back-off in either agent, so this is the agents' reaction time.
 *
 *   bun scripts/bench-lifecycle.ts [--rounds 3] [--containerd 1.6,1.7] [--systems bunlet,kubelet]
 *                                  [--bunlet dist/bunlet] [--kubelet PATH] [--bunlet-flags "--v=4"]
 *
 * Needs what scripts/bench-startup.ts needs. Not a test: it asserts nothing about speed.
 */
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { renameSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { ContainerState, labels } from "../src/cri/index.ts";
import { startTestContainerd } from "../test/harness/containerd.ts";
import { containerdBinary, type ContainerdVersion } from "../test/harness/containerd-versions.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, REPO_ROOT } from "../test/harness/images.ts";
import type { AgentHandle, AgentSystem } from "./lib/bench-agent.ts";
import { createBunletSystem } from "./lib/bench-bunlet.ts";
import { BUSYBOX_IMAGE, COMMAND, CONTAINER_NAME, GRACE_SECONDS, median, pollUntil, type PodSet } from "./lib/bench-common.ts";
import { createKubeletSystem } from "./lib/bench-kubelet.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const rounds = Number(arg("rounds", "3"));
const versions = arg("containerd", "1.6,1.7").split(",") as ContainerdVersion[];
const systems = arg("systems", "bunlet,kubelet").split(",");
const timeoutMs = Number(arg("timeout", "120")) * 1000;
if (!Number.isInteger(rounds) || rounds < 1 || versions.some((v) => !["1.6", "1.7", "2"].includes(v)) || systems.some((s) => !["bunlet", "kubelet"].includes(s))) {
  console.error("usage: bun scripts/bench-lifecycle.ts [--rounds 3] [--containerd 1.6,1.7] [--systems bunlet,kubelet] [--timeout 120]");
  process.exit(2);
}

const shutdown = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    console.error(`bench-lifecycle: ${sig}: stopping after cleanup`);
    shutdown.abort(new Error(`received ${sig}`));
  });
}

const INIT_NAME = "init";
const CRASHER = "crasher";

function initPod(namespace: string, name: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: GRACE_SECONDS,
      initContainers: [{ name: INIT_NAME, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: ["true"] }],
      containers: [{ name: CONTAINER_NAME, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: COMMAND }],
    },
  };
}

function crashPod(namespace: string, name: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: GRACE_SECONDS,
      restartPolicy: "Always",
      containers: [{ name: CRASHER, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: ["sh", "-c", "sleep 2; exit 1"] }],
    },
  };
}

function writeManifest(agent: AgentHandle, namespace: string, name: string, pod: Record<string, unknown>): void {
  const file = join(agent.manifests, `${namespace}-${name}.yaml`);
  const tmp = join(agent.manifests, `.${namespace}-${name}.yaml.tmp`);
  writeFileSync(tmp, stringify(pod));
  renameSync(tmp, file);
}

async function containersOf(agent: AgentHandle, namespace: string, name: string) {
  const { containers } = await agent.cri.runtime.listContainers(
    { filter: { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace, [labels.KubernetesContainerNameLabel]: name } } },
    { timeoutMs: 10_000 },
  );
  return containers;
}

/** Manifest written → the sleeper after the init container RUNNING, in ms. */
async function initRound(sys: AgentSystem, pods: PodSet): Promise<number> {
  const agent = sys.agent();
  const t0 = performance.now();
  writeManifest(agent, pods.namespace, pods.names[0]!, initPod(pods.namespace, pods.names[0]!));
  try {
    const seen = await pollUntil(
      `${sys.label}: the sleeper after the init container`,
      async () => {
        agent.alive("while starting the init pod");
        return (await containersOf(agent, pods.namespace, CONTAINER_NAME)).some((c) => c.state === ContainerState.CONTAINER_RUNNING);
      },
      timeoutMs,
      shutdown.signal,
    );
    return seen - t0;
  } finally {
    await sys.removePods(pods, shutdown.signal);
  }
}

/** attempt 0 finishedAt → attempt 1 startedAt, in ms, from CRI's ContainerStatus. */
async function restartRound(sys: AgentSystem, pods: PodSet): Promise<number> {
  const agent = sys.agent();
  writeManifest(agent, pods.namespace, pods.names[0]!, crashPod(pods.namespace, pods.names[0]!));
  try {
    let ms = 0;
    await pollUntil(
      `${sys.label}: the crasher's first restart`,
      async () => {
        agent.alive("while the crasher restarts");
        const containers = await containersOf(agent, pods.namespace, CRASHER);
        const first = containers.find((c) => c.metadata?.attempt === 0);
        const second = containers.find((c) => c.metadata?.attempt === 1);
        if (!first || !second || second.state === ContainerState.CONTAINER_CREATED) return false;
        const [a, b] = await Promise.all([first, second].map((c) => agent.cri.runtime.containerStatus({ containerId: c.id }, { timeoutMs: 10_000 })));
        const finished = a!.status?.finishedAt ?? 0n;
        const started = b!.status?.startedAt ?? 0n;
        if (finished === 0n || started === 0n) return false;
        ms = Number(started - finished) / 1e6;
        return true;
      },
      timeoutMs,
      shutdown.signal,
    );
    return ms;
  } finally {
    await sys.removePods(pods, shutdown.signal);
  }
}

function makeSystem(kind: string, version: ContainerdVersion): AgentSystem {
  const logFile = `${REPO_ROOT}/.bench/lifecycle/${kind}-${version}.log`;
  if (kind === "bunlet") {
    return createBunletSystem({
      binary: resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`)),
      images: [BUSYBOX_TAR, PAUSE_TAR],
      logFile,
      timeoutMs,
      flags: [...(version === "1.6" ? [] : [`--containerd=${containerdBinary(version)}`]), ...arg("bunlet-flags", "").split(" ").filter(Boolean)],
    });
  }
  return createKubeletSystem({
    binary: resolve(arg("kubelet", "/var/cache/bunlet-k8s/v1.37.2/kubelet")),
    start: () => startTestContainerd({ name: `bench-kubelet-${version}`, version }),
    logFile,
    timeoutMs,
    // The kubelet's evented PLEG is alpha and off by default; on a runtime with events, turn it on.
    featureGates: version === "1.6" ? {} : { EventedPLEG: true },
  });
}

interface Row {
  system: string;
  containerd: ContainerdVersion;
  initMs: number[];
  restartMs: number[];
  failed?: string;
}

const rows: Row[] = [];
const loadStart = loadavg()[0]!.toFixed(2);
try {
  await ensureImages();
  for (const version of versions) {
    for (const kind of systems) {
      const row: Row = { system: kind, containerd: version, initMs: [], restartMs: [] };
      rows.push(row);
      const sys = makeSystem(kind, version);
      try {
        await sys.setup(shutdown.signal);
        for (let r = 0; r < rounds; r++) {
          const init = await initRound(sys, { namespace: `lc-init-r${r}`, names: ["p0"] });
          row.initMs.push(init);
          const restart = await restartRound(sys, { namespace: `lc-crash-r${r}`, names: ["p0"] });
          row.restartMs.push(restart);
          console.error(`bench-lifecycle: ${kind} on containerd ${version}, round ${r + 1}/${rounds}: init ${init.toFixed(0)} ms, restart ${restart.toFixed(0)} ms`);
        }
      } catch (err) {
        if (shutdown.signal.aborted) throw err;
        row.failed = err instanceof Error ? err.message : String(err);
        console.error(`bench-lifecycle: ${kind} on containerd ${version}: ${row.failed}`);
      } finally {
        await sys.teardown().catch((err) => console.error(`bench-lifecycle: ${kind}: cleanup failed: ${err}`));
      }
    }
  }
} catch (err) {
  console.error(`bench-lifecycle: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}

const fmt = (xs: number[]) => (xs.length === rounds ? median(xs).toFixed(0) : "-");
console.log(`\nInit container and first restart, median of ${rounds} round(s)`);
console.log(`(${cpus().length} CPUs; load average at start ${loadStart}, at end ${loadavg()[0]!.toFixed(2)})`);
console.log("agent | containerd | manifest → running after init ms | exit → restart ms");
console.log("---|---|---|---");
for (const r of rows) console.log(`${r.system} | ${r.containerd} | ${r.failed ? "failed (below)" : fmt(r.initMs)} | ${r.failed ? "-" : fmt(r.restartMs)}`);
for (const r of rows) {
  if (r.failed) {
    console.log(`${r.system} on ${r.containerd}: ${r.failed.split("\n")[0]}`);
    process.exitCode = 1;
  }
  console.log(JSON.stringify({ bench: "lifecycle", agent: r.system, containerd: r.containerd, rounds, loadStart: Number(loadStart), initMs: r.initMs.map(Math.round), restartMs: r.restartMs.map(Math.round) }));
}
