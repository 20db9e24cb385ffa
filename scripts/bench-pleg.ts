/**
 * PLEG costs and speed. The tests pin order and cause on a FakeClock; the figures live here.
 *  1. Relist duration against a real containerd at 10, 50 and 100 pods of 2 containers: a steady
 *     relist (nothing changed: one ListPodSandbox + one ListContainers) and a full relist (every
 *     pod changed: a status read per pod), each next to the raw CRI floor of the same calls
 *     measured in the same run. Then, on that containerd (1.6: no event stream), the generic PLEG
 *     at 1 s: the interval between relist starts, and a container killed behind its back (ctr
 *     tasks kill) → ContainerDied.
 *  2. Detection latency on the fake CRI: a container exits → ContainerDied on the PLEG channel,
 *     evented vs generic (1 s relist), exits at random moments.
 *  3. The whole agent on the fake CRI: a container exits → StartContainer of its replacement,
 *     evented vs generic.
 *
 *   bun scripts/bench-pleg.ts [--pods 10,50,100] [--rounds 20] [--exits 20] [--skip-containerd]
 */
import { Channel, realClock, silentLogger } from "../src/lib/index.ts";
import { createCriClient, type CriClient } from "../src/cri/index.ts";
import { createMetrics } from "../src/metrics/index.ts";
import { createPleg, GenericPleg, PodCache, type PodLifecycleEvent } from "../src/pleg/index.ts";
import { startFakeCri } from "../test/fake-cri/index.ts";
import { runtimeViews } from "../src/runtime/index.ts";
import { createPod, nextEvent } from "../test/integration/pleg/helpers.ts";
import { agentConfig, busyboxPod, makeDirs, runAgent, runningPod, waitFor, writeManifest } from "../test/integration/agent/helpers.ts";
import { ContainerState } from "../src/cri/index.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const podCounts = arg("pods", "10,50,100").split(",").map(Number);
const rounds = Number(arg("rounds", "20"));
const exits = Number(arg("exits", "20"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
const time = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

/** The benchmark runs to the end: its runtime calls are never cancelled. */
const forever = new AbortController().signal;

function newGeneric(cri: CriClient): GenericPleg {
  const deps = {
    runtime: runtimeViews(cri),
    cache: new PodCache(),
    events: new Channel<PodLifecycleEvent>(1_000_000),
    clock: realClock,
    log: silentLogger,
    metrics: createMetrics(),
    signal: forever,
  };
  return new GenericPleg(deps, { periodMs: 1000, thresholdMs: 180_000 });
}

async function benchRelist(): Promise<void> {
  const { startTestContainerd } = await import("../test/harness/containerd.ts");
  const ctd = await startTestContainerd({ name: "bench-pleg" });
  const cri = createCriClient({ endpoint: ctd.endpoint });
  const lister = runtimeViews(cri);
  const rows: string[] = [];
  let generic: { intervals: number[]; detections: number[] } | undefined;
  try {
    let created = 0;
    for (const target of podCounts) {
      const t0 = performance.now();
      while (created < target) await createPod(cri, `bench-${created++}`, 2);
      console.error(`created ${target} pods (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      const steady: number[] = [];
      const steadyFloor: number[] = [];
      const full: number[] = [];
      const fullFloor: number[] = [];
      const warm = newGeneric(cri);
      await warm.relist();
      for (let r = 0; r < rounds; r++) {
        steadyFloor.push(await time(() => Promise.all([cri.runtime.listPodSandbox({}), cri.runtime.listContainers({})])));
        steady.push(await time(() => warm.relist()));
        fullFloor.push(
          await time(async () => {
            for (const pod of await lister.getPods({ signal: forever })) await lister.getPodStatus(pod.uid, pod.name, pod.namespace, { signal: forever });
          }),
        );
        const fresh = newGeneric(cri);
        full.push(await time(() => fresh.relist()));
      }
      const [s, sf, f, ff] = [median(steady), median(steadyFloor), median(full), median(fullFloor)];
      rows.push(`${target} | ${s.toFixed(2)} | ${sf.toFixed(2)} | ${(s / sf).toFixed(2)} | ${f.toFixed(1)} | ${ff.toFixed(1)} | ${(f / ff).toFixed(2)}`);
    }
    generic = await genericOnContainerd(cri, ctd.socketPath);
  } finally {
    cri.close();
    await ctd.stop();
  }
  console.log(`\nRelist duration against containerd (2 containers per pod), median of ${rounds} rounds, ms`);
  console.log("pods | steady relist | raw list floor | ratio | full relist | raw list+status floor | ratio");
  console.log("---|---|---|---|---|---|---");
  for (const row of rows) console.log(row);
  if (generic) {
    console.log(`\nGeneric PLEG (1 s relist) on containerd, ms`);
    console.log("measure | median | p95 | max");
    console.log("---|---|---|---");
    console.log(`interval between relist starts | ${summary(generic.intervals)}`);
    console.log(`kill behind its back → ContainerDied | ${summary(generic.detections)}`);
  }
}

const summary = (xs: number[]) => `${median(xs).toFixed(0)} | ${p95(xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)}`;

/** The generic PLEG at 1 s on a real containerd: relist rhythm and detection of killed containers. */
async function genericOnContainerd(cri: CriClient, socketPath: string): Promise<{ intervals: number[]; detections: number[] }> {
  const { runCommand } = await import("../test/harness/images.ts");
  const lister = runtimeViews(cri);
  const starts: number[] = [];
  const pleg = createPleg({
    runtime: { ...lister, getPods: (opts) => (starts.push(performance.now()), lister.getPods(opts)) },
    cri,
    cache: new PodCache(),
    clock: realClock,
    log: silentLogger,
    metrics: createMetrics(),
    eventedEnabled: false,
  });
  const victims: string[] = [];
  for (let i = 0; i < Math.ceil(exits / 2); i++) victims.push((await createPod(cri, `kill-${i}`)).containerIds[0]!);
  pleg.start();
  const detections: number[] = [];
  try {
    await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === victims.at(-1), 10_000);
    const from = starts.length;
    for (const id of victims) {
      await Bun.sleep(Math.random() * 1000); // land anywhere in the relist period
      const t0 = performance.now();
      await runCommand(["ctr", "--address", socketPath, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id]);
      await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 10_000);
      detections.push(performance.now() - t0);
    }
    const seen = starts.slice(from);
    return { intervals: seen.slice(1).map((t, i) => t - seen[i]!), detections };
  } finally {
    await pleg.stop();
  }
}

async function detectionLatency(eventedEnabled: boolean): Promise<number[]> {
  const fake = await startFakeCri();
  const cri = createCriClient({ endpoint: fake.endpoint });
  const pods = [];
  for (let i = 0; i < Math.ceil(exits / 2); i++) pods.push(await createPod(cri, `lat-${i}`, 2));
  const ids = pods.flatMap((p) => p.containerIds).slice(0, exits);
  const pleg = createPleg({
    runtime: runtimeViews(cri),
    cri,
    cache: new PodCache(),
    clock: realClock,
    log: silentLogger,
    metrics: createMetrics(),
    eventedEnabled,
  });
  pleg.start();
  if (eventedEnabled) await fake.events.whenSubscribers(1);
  // The first relist reports every running container; exits after that are changes.
  await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === ids.at(-1), 5000);
  const latencies: number[] = [];
  try {
    for (const id of ids) {
      await Bun.sleep(Math.random() * 1000); // land anywhere in the relist period
      const t0 = performance.now();
      fake.exitContainer(id, 1);
      await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 5000);
      latencies.push(performance.now() - t0);
    }
  } finally {
    await pleg.stop();
    cri.close();
    await fake.stop();
  }
  return latencies;
}

async function benchLatency(): Promise<void> {
  const evented = await detectionLatency(true);
  const generic = await detectionLatency(false);
  console.log(`\nDetection latency on the fake CRI (container exit → ContainerDied), ${exits} exits, ms`);
  console.log("PLEG | median | p95 | max | ratio (median) to evented");
  console.log("---|---|---|---|---");
  for (const [name, xs] of [["evented", evented], ["generic (1 s relist)", generic]] as const) {
    console.log(`${name} | ${median(xs).toFixed(1)} | ${p95(xs).toFixed(1)} | ${Math.max(...xs).toFixed(1)} | ${(median(xs) / median(evented)).toFixed(1)}`);
  }
}

/**
 * One agent running `exits` pods; each sample exits one pod's container once (a first crash, so
 * no crash-loop backoff applies) and times exit → the replacement's StartContainer.
 */
async function agentRestartLatency(eventedEnabled: boolean): Promise<number[]> {
  const fake = await startFakeCri();
  const dirs = makeDirs();
  const names = Array.from({ length: exits }, (_, i) => `web${i}`);
  for (const name of names) writeManifest(dirs, `${name}.json`, busyboxPod(name));
  const extra = eventedEnabled ? [] : ["--feature-gates=EventedPLEG=false"];
  const agent = await runAgent(agentConfig(dirs, fake.endpoint, extra));
  const latencies: number[] = [];
  try {
    for (const name of names) await waitFor(`${name} Running`, () => runningPod(agent, name), 60_000);
    if (eventedEnabled) await fake.events.whenSubscribers(1);
    for (const name of names) {
      await Bun.sleep(Math.random() * 1000); // land anywhere in the relist period
      const running = fake.state.containers.find(
        (c) => c.labels["io.kubernetes.pod.name"] === `${name}-node1` && c.state === ContainerState.CONTAINER_RUNNING,
      );
      const starts = fake.callNames().filter((m) => m === "StartContainer").length;
      const t0 = performance.now();
      fake.exitContainer(running!.id, 1);
      await fake.whenCalled("StartContainer", starts + 1, AbortSignal.timeout(30_000));
      latencies.push(performance.now() - t0);
    }
  } finally {
    await agent.stop();
    await fake.stop();
    dirs.cleanup();
  }
  return latencies;
}

async function benchAgentRestart(): Promise<void> {
  const evented = await agentRestartLatency(true);
  const generic = await agentRestartLatency(false);
  console.log(`\nAgent restart on the fake CRI (container exit → StartContainer of its replacement), ${exits} exits, ms`);
  console.log("PLEG | median | p95 | max | ratio (median) to evented");
  console.log("---|---|---|---|---");
  for (const [name, xs] of [["evented", evented], ["generic (1 s relist)", generic]] as const) {
    console.log(`${name} | ${median(xs).toFixed(1)} | ${p95(xs).toFixed(1)} | ${Math.max(...xs).toFixed(1)} | ${(median(xs) / median(evented)).toFixed(1)}`);
  }
}

if (!process.argv.includes("--skip-containerd")) await benchRelist();
await benchLatency();
await benchAgentRestart();
