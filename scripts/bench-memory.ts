/**
 * Where bunlet's memory goes (issue 30), without containerd: the built binary against the fake
 * CRI runtime (a real gRPC server in this process), N static pods written at once. Prints, per
 * binary given, RSS split into anonymous and file-backed pages at 0 pods, once N pods run, after
 * an idle time and after the pods are deleted, the agent's CPU for the burst and the idle time,
 * and (for a binary built from scripts/lib/heap-probe-entry.ts) the JS heap by object type. The
 * fake answers in microseconds, so these figures are the agent's own cost per pod; the start-up
 * benchmarks (bench-startup.sh, bench-cluster.ts) measure it beside the kubelet on containerd.
 *
 *   bun scripts/bench-memory.ts [--pods 100] [--idle-seconds 30] [--rounds 1] [--binary dist/bunlet,...]
 *                               [--env "K=V;K2=V2|K3=V3"] [--heap] [--snapshot] [--after-seconds 10]
 *
 * --heap builds .tmp/bunlet-heap (the agent plus a SIGUSR2 heap probe) and adds it as a binary;
 * --snapshot also writes full heap snapshots (.tmp/heap/*.heapsnapshot) at 0 and N pods.
 * --after-seconds: how long after the pods are gone the "deleted" figure is read (past 10 s of
 * quiet the agent's idle release has run, so it says what the pods left behind).
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, closeSync, existsSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startFakeCri } from "../test/fake-cri/index.ts";
import { ContainerState, PodSandboxState } from "../src/cri/index.ts";
import { delay, realClock } from "../src/lib/index.ts";
import { freePort, NO_QOS_CGROUPS, pollUntil, podYaml, processCpuSeconds, processMemory } from "./lib/bench-common.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const REPO = resolve(import.meta.dir, "..");
const pods = Number(arg("pods", "100"));
const idleSeconds = Number(arg("idle-seconds", "30"));
const afterSeconds = Number(arg("after-seconds", "10"));
const rounds = Number(arg("rounds", "1"));
const heap = process.argv.includes("--heap") || process.argv.includes("--snapshot");
const snapshot = process.argv.includes("--snapshot");
/** `--env "K=V;K2=V2|K3=V3"`: each `|`-separated set is one more run of every binary with that environment. */
const envs = arg("env", "")
  .split("|")
  .map((set) =>
    Object.fromEntries(
      set
        .split(";")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  );
const binaries = arg("binary", `${REPO}/dist/bunlet`).split(",").filter((b) => b !== "none").map((b) => resolve(b));
if (heap) {
  const out = `${REPO}/.tmp/bunlet-heap`;
  const build = Bun.spawnSync([`${REPO}/node_modules/.bin/bun`, "build", "--compile", "--minify", "--sourcemap", `${REPO}/scripts/lib/heap-probe-entry.ts`, "--outfile", out], { stderr: "inherit" });
  if (build.exitCode !== 0) throw new Error("could not build the heap-probe binary");
  binaries.push(out);
}

/** "Method n, ..." with the total first, most called first. */
function countCalls(calls: readonly { method: string }[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
  return [`${calls.length} in all`, ...[...counts].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`)].join(", ");
}

interface Sample {
  rss: number;
  anon: number;
  file: number;
}
const sample = (pid: number): Sample => {
  const m = processMemory(pid);
  if (!m) throw new Error(`pid ${pid} is gone`);
  return { rss: m.rssMiB, anon: m.anonMiB, file: m.fileMiB };
};
/** The process's mappings with the most resident anonymous memory (smaps): which allocator or pool holds it. */
function smapsTop(pid: number, n = 12): string {
  const blocks = readFileSync(`/proc/${pid}/smaps`, "utf8").split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
  const rows = blocks.map((b) => {
    const [head] = b.split("\n");
    const [range, perms, , , , ...rest] = head!.split(/\s+/);
    const [lo, hi] = range!.split("-").map((h) => Number.parseInt(h, 16));
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(b)?.[1] ?? 0);
    return { what: `${perms} ${rest.join(" ") || "[anon]"} size ${((hi! - lo!) / 2 ** 20).toFixed(1)}M`, anon: kb("Anonymous") };
  });
  const total = rows.reduce((a, r) => a + r.anon, 0);
  return `anon ${(total / 1024).toFixed(1)} MiB in ${rows.length} mappings; top: ${rows.sort((a, b) => b.anon - a.anon).slice(0, n).map((r) => `${(r.anon / 1024).toFixed(1)}M ${r.what}`).join("; ")}`;
}
const showSmaps = process.argv.includes("--smaps");

const fmt = (s: Sample) => `${s.rss.toFixed(1)} (${s.anon.toFixed(1)} + ${s.file.toFixed(1)})`;

async function readPods(port: number): Promise<Array<{ metadata: { namespace: string } }>> {
  const res = await fetch(`http://127.0.0.1:${port}/pods`, { signal: AbortSignal.timeout(5000) });
  return ((await res.json()) as { items: never[] }).items;
}

async function run(binary: string, round: number, env: Record<string, string>) {
  const cri = await startFakeCri();
  // A real runtime writes each container's log file; without it the agent's log manager asks for a reopen every few seconds.
  cri.onCreate((c) => {
    if (!c.logPath) return;
    mkdirSync(dirname(c.logPath), { recursive: true });
    writeFileSync(c.logPath, "");
  });
  const root = mkdtempSync(join(tmpdir(), "bunlet-mem-"));
  const manifests = join(root, "manifests");
  mkdirSync(manifests);
  const heapOut = join(REPO, ".tmp", "heap", `${binary.split("/").pop()}-r${round}`);
  mkdirSync(join(REPO, ".tmp", "heap"), { recursive: true });
  const port = await freePort();
  const logFile = join(REPO, ".tmp", `bench-memory-${binary.split("/").pop()}.log`);
  const log = openSync(logFile, "w");
  const proc = Bun.spawn(
    [
      binary,
      `--pod-manifest-path=${manifests}`,
      `--root-dir=${join(root, "state")}`,
      `--pod-logs-dir=${join(root, "pod-logs")}`,
      `--container-logs-dir=${join(root, "container-logs")}`,
      `--container-runtime-endpoint=${cri.endpoint}`,
      "--address=127.0.0.1",
      `--read-only-port=${port}`,
      "--healthz-port=0",
      "--node-name=mem-node",
      `--max-pods=${Math.max(110, pods)}`,
      // Never the host's /kubepods: other nodes' pods there would be orphans to this agent.
      ...NO_QOS_CGROUPS,
      "--v=2",
    ],
    { stdout: log, stderr: log, env: { ...process.env, ...env, BUNLET_HEAP_PROBE: heapOut, BUNLET_HEAP_SNAPSHOT: snapshot ? "1" : "0" } },
  );
  closeSync(log);
  const signal = AbortSignal.timeout(600_000);
  const probe = async (n: number) => {
    if (!binary.includes("bunlet-heap")) return undefined;
    proc.kill("SIGUSR2");
    await pollUntil("heap probe", async () => existsSync(`${heapOut}.${n}.json`), 60_000, signal);
    await delay(realClock, snapshot ? 3000 : 200);
    return JSON.parse(readFileSync(`${heapOut}.${n}.json`, "utf8")) as { heapSize: number; objectCount: number; objectTypeCounts: Record<string, number>; memoryUsage: Record<string, number>; jsc: Record<string, number> };
  };
  try {
    const t0 = performance.now();
    await pollUntil("/healthz", async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, 30_000, signal);
    const startupMs = performance.now() - t0;
    await delay(realClock, 5000, signal);
    const empty = sample(proc.pid);
    if (showSmaps) console.log(`smaps at 0 pods: ${smapsTop(proc.pid)}`);
    const heap0 = await probe(0);
    const cpu0 = processCpuSeconds(proc.pid)!;
    const burstCallsFrom = cri.calls.length;
    const t1 = performance.now();
    for (let i = 0; i < pods; i++) {
      const tmp = join(manifests, `.p${i}.tmp`);
      writeFileSync(tmp, podYaml("bench-mem", `p${i}`));
      renameSync(tmp, join(manifests, `p${i}.yaml`));
    }
    // The runtime's view, as bench-startup.ts times it (polling /pods would cost the agent more than the pods do).
    await pollUntil(`${pods} containers RUNNING`, async () => cri.state.containers.filter((c) => c.state === ContainerState.CONTAINER_RUNNING).length === pods, 300_000, signal);
    const burstMs = performance.now() - t1;
    const cpuBurst = processCpuSeconds(proc.pid)! - cpu0;
    const burst = sample(proc.pid);
    console.log(`CRI calls for the burst: ${countCalls(cri.calls.slice(burstCallsFrom))}`);
    await delay(realClock, 5000, signal);
    const cpu1 = processCpuSeconds(proc.pid)!;
    const callsBefore = cri.calls.length;
    await delay(realClock, idleSeconds * 1000, signal);
    // What the agent asks the runtime while idle: each answer is decoded, so this is idle garbage too.
    console.log(`CRI calls while idle (${idleSeconds} s): ${countCalls(cri.calls.slice(callsBefore))}`);
    const idleCores = (processCpuSeconds(proc.pid)! - cpu1) / idleSeconds;
    const idle = sample(proc.pid);
    if (showSmaps) console.log(`smaps at ${pods} pods idle: ${smapsTop(proc.pid)}`);
    const heapN = await probe(1);
    if (heapN) {
      await delay(realClock, 2000, signal);
      console.log(`after a full GC at ${pods} pods idle: RSS ${fmt(sample(proc.pid))}`);
    }
    for (let i = 0; i < pods; i++) rmSync(join(manifests, `p${i}.yaml`));
    await pollUntil("pods stopped", async () => cri.state.sandboxes.every((s) => s.state !== PodSandboxState.SANDBOX_READY), 120_000, signal);
    await pollUntil("pods gone from /pods", async () => (await readPods(port)).filter((p) => p.metadata.namespace === "bench-mem").length === 0, 120_000, signal);
    await delay(realClock, afterSeconds * 1000, signal);
    const after = sample(proc.pid);
    const heapAfter = await probe(2);
    const load = loadavg().map((l) => l.toFixed(2)).join(" ");
    console.log(`\n${binary} ${JSON.stringify(env)} round ${round + 1} (load ${load})`);
    console.log(`start-up to /healthz ${startupMs.toFixed(0)} ms; ${pods} pods → Running ${burstMs.toFixed(0)} ms, CPU ${cpuBurst.toFixed(2)} s; idle ${idleCores.toFixed(4)} cores`);
    console.log(`RSS MiB (anon + file): 0 pods ${fmt(empty)} | burst ${fmt(burst)} | idle ${fmt(idle)} | deleted ${fmt(after)}`);
    for (const [what, h] of [["0 pods", heap0], [`${pods} pods`, heapN], ["deleted", heapAfter]] as const) {
      if (!h) continue;
      const top = Object.entries(h.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ${v}`).join(", ");
      console.log(`heap ${what}: ${(h.heapSize / 2 ** 20).toFixed(1)} MiB, ${h.objectCount} objects; memoryUsage rss ${(h.memoryUsage.rss! / 2 ** 20).toFixed(1)} heapTotal ${(h.memoryUsage.heapTotal! / 2 ** 20).toFixed(1)} heapUsed ${(h.memoryUsage.heapUsed! / 2 ** 20).toFixed(1)} external ${(h.memoryUsage.external! / 2 ** 20).toFixed(1)}; jsc ${JSON.stringify(h.jsc)}; ${top}`);
    }
    console.log(JSON.stringify({ bench: "memory", binary, env, pods, load, startupMs, burstMs, cpuBurst, idleCores, empty, burst, idle, after, heap0: heap0?.heapSize, heapN: heapN?.heapSize, heapAfter: heapAfter?.heapSize }));
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    await cri.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

for (let r = 0; r < rounds; r++) for (const env of envs) for (const b of binaries) await run(b, r, env);
