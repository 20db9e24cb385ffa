/**
 * PLEG costs and speed.
 *  1. Relist duration against a real containerd at 10, 50 and 100 pods of 2 containers: a steady
 *     relist (nothing changed: one ListPodSandbox + one ListContainers) and a full relist (every
 *     pod changed: a status read per pod), each next to the raw CRI floor of the same calls
 *     measured in the same run.
 *  2. Detection latency on the fake CRI: a container exits → ContainerDied on the PLEG channel,
 *     evented vs generic (1 s relist), exits at random moments.
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
  } finally {
    cri.close();
    await ctd.stop();
  }
  console.log(`\nRelist duration against containerd (2 containers per pod), median of ${rounds} rounds, ms`);
  console.log("pods | steady relist | raw list floor | ratio | full relist | raw list+status floor | ratio");
  console.log("---|---|---|---|---|---|---");
  for (const row of rows) console.log(row);
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

if (!process.argv.includes("--skip-containerd")) await benchRelist();
await benchLatency();
