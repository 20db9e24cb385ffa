/**
 * Start-up benchmark (issues 5 and 17): N pods from manifests on bunlet's embedded containerd,
 * timed from "manifests written" to "every container RUNNING" as seen through CRI, next to the raw
 * CRI floor (the same sandboxes and containers sent straight to a containerd, same concurrency),
 * the upstream kubelet standalone on a containerd of its own, and `podman kube play` on the same
 * images, all measured in the same run. Prints medians and ratios to the floor, the agents' RSS
 * and CPU per row, a JSON line per row, and optionally both agents idling with N pods. Not a
 * test: it asserts nothing about speed.
 *
 *   bun scripts/bench-startup.ts [--pods 1,10,30,100] [--rounds 3] [--systems floor,bunlet,kubelet,podman]
 *                                [--containerd 1.6|1.7|2] [--bunlet dist/bunlet] [--kubelet PATH]
 *                                [--idle-pods 100 --idle-seconds 60] [--timeout 120] [--bunlet-flags "--v=4"]
 *                                [--bunlet-env "BUN_OPTIONS=--cpu-prof --cpu-prof-dir=/tmp/prof"]
 *
 * Needs root, containerd, runc and the CNI plugins (scripts/install-deps.sh), dist/bunlet
 * (npm run build) and the kubelet (scripts/k8s/build.sh kubelet). Everything it starts is torn
 * down at the end, on failure and on Ctrl-C.
 */
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { startTestContainerd } from "../test/harness/containerd.ts";
import { containerdBinary, type ContainerdVersion } from "../test/harness/containerd-versions.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, REPO_ROOT } from "../test/harness/images.ts";
import { createBunletSystem } from "./lib/bench-bunlet.ts";
import { median, podSet, type BenchSystem, type IdleResult, type RoundResult } from "./lib/bench-common.ts";
import { createFloorSystem } from "./lib/bench-floor.ts";
import { createKubeletSystem } from "./lib/bench-kubelet.ts";
import { createPodmanSystem } from "./lib/bench-podman.ts";

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

const K8S_CACHE = "/var/cache/bunlet-k8s/v1.37.2";
const podCounts = arg("pods", "1,10,30,100").split(",").map(Number);
const rounds = Number(arg("rounds", "3"));
const wanted = new Set(arg("systems", "floor,bunlet,kubelet,podman").split(","));
const timeoutMs = Number(arg("timeout", "120")) * 1000;
const containerd = arg("containerd", "1.6") as ContainerdVersion;
const idlePods = Number(arg("idle-pods", "0"));
const idleSeconds = Number(arg("idle-seconds", "60"));
if (
  podCounts.some((n) => !Number.isInteger(n) || n < 1) ||
  !Number.isInteger(rounds) ||
  rounds < 1 ||
  !(timeoutMs > 0) ||
  !["1.6", "1.7", "2"].includes(containerd) ||
  !Number.isInteger(idlePods) ||
  idlePods < 0 ||
  !(idleSeconds > 0)
) {
  console.error(
    "usage: bun scripts/bench-startup.ts [--pods 1,10,30,100] [--rounds 3] [--systems floor,bunlet,kubelet,podman] [--containerd 1.6|1.7|2] [--bunlet dist/bunlet] [--kubelet PATH] [--idle-pods N --idle-seconds 60] [--timeout 120]",
  );
  process.exit(2);
}

const shutdown = new AbortController();
let signals = 0;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (++signals > 1) process.exit(130);
    console.error(`bench-startup: ${sig}: stopping after cleanup (again to exit at once, leaving things behind)`);
    shutdown.abort(new Error(`received ${sig}`));
  });
}

/** A system that could not run says why in its column instead of a figure. */
interface Column {
  key: "floor" | "bunlet" | "kubelet" | "podman";
  system?: BenchSystem;
  skipped?: string;
  failed?: string;
  results: Map<number, RoundResult[]>;
  idle?: IdleResult;
}

const columns: Column[] = [
  { key: "floor", system: createFloorSystem({ start: () => startTestContainerd({ name: "bench-floor", version: containerd }), timeoutMs }), results: new Map() },
  {
    key: "bunlet",
    system: createBunletSystem({
      binary: resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`)),
      images: [BUSYBOX_TAR, PAUSE_TAR],
      logFile: `${REPO_ROOT}/.bench/startup/bunlet.log`,
      timeoutMs,
      flags: [...(containerd === "1.6" ? [] : [`--containerd=${containerdBinary(containerd)}`]), ...arg("bunlet-flags", "").split(" ").filter(Boolean)],
      env: bunletEnv(),
    }),
    results: new Map(),
  },
  {
    key: "kubelet",
    system: createKubeletSystem({
      binary: resolve(arg("kubelet", `${K8S_CACHE}/kubelet`)),
      start: () => startTestContainerd({ name: "bench-kubelet", version: containerd }),
      logFile: `${REPO_ROOT}/.bench/startup/kubelet.log`,
      timeoutMs,
    }),
    results: new Map(),
  },
  Bun.which("podman")
    ? { key: "podman", system: createPodmanSystem({ busyboxTar: BUSYBOX_TAR, pauseTar: PAUSE_TAR, timeoutMs }), results: new Map() }
    : { key: "podman", skipped: "podman not installed: skipped", results: new Map() },
];
for (const c of columns) if (!wanted.has(c.key)) c.skipped = "not selected (--systems)";

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
const live = () => columns.filter((c) => c.system && !c.skipped && !c.failed);
const t0 = performance.now();
const loadStart = loadavg()[0]!.toFixed(2);

try {
  await ensureImages();
  for (const c of live()) {
    try {
      await c.system!.setup(shutdown.signal);
      // One untimed pod first, so no figure pays for a cold page cache or a first CNI setup.
      await c.system!.round(podSet(1, "warmup"), shutdown.signal);
    } catch (err) {
      if (shutdown.signal.aborted) throw err;
      c.failed = `setup failed: ${errorText(err)}`;
      console.error(`bench-startup: ${c.system!.label}: ${c.failed}`);
    }
  }
  for (const n of podCounts) {
    for (let r = 0; r < rounds; r++) {
      for (const c of live()) {
        try {
          const result = await c.system!.round(podSet(n, `n${n}-r${r}`), shutdown.signal);
          c.results.set(n, [...(c.results.get(n) ?? []), result]);
          const cost = result.rssMiB === undefined ? "" : ` (RSS ${result.rssMiB.toFixed(1)} MiB, CPU ${result.cpuSeconds?.toFixed(2)} s)`;
          console.error(`bench-startup: ${c.system!.label}: ${n} pods, round ${r + 1}/${rounds}: ${result.ms.toFixed(0)} ms${cost}`);
        } catch (err) {
          if (shutdown.signal.aborted) throw err;
          c.failed = `${n} pods, round ${r + 1} failed: ${errorText(err)}`;
          console.error(`bench-startup: ${c.system!.label}: ${c.failed}`);
        }
      }
    }
  }
  if (idlePods > 0) {
    for (const c of live().filter((c) => c.system!.idle)) {
      try {
        console.error(`bench-startup: ${c.system!.label}: ${idlePods} pods, idling ${idleSeconds} s`);
        const idle = (c.idle = await c.system!.idle!(podSet(idlePods, "idle"), idleSeconds, shutdown.signal));
        console.error(
          `bench-startup: ${c.system!.label}: idle with ${idlePods} pods: RSS ${idle.rssStartMiB.toFixed(1)} → ${idle.rssEndMiB.toFixed(1)} MiB, CPU ${idle.cores.toFixed(4)} cores`,
        );
      } catch (err) {
        if (shutdown.signal.aborted) throw err;
        c.failed = `idle run failed: ${errorText(err)}`;
        console.error(`bench-startup: ${c.system!.label}: ${c.failed}`);
      }
    }
  }
  const notes = live().flatMap((c) => c.system!.notes?.() ?? []);
  printTable(notes);
} catch (err) {
  console.error(`bench-startup: ${errorText(err)}`);
  process.exitCode = 1;
} finally {
  for (const c of columns) {
    await c.system?.teardown().catch((err) => {
      console.error(`bench-startup: ${c.system!.label}: cleanup failed: ${errorText(err)}`);
      process.exitCode = 1;
    });
  }
  console.error(`bench-startup: done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

function printTable(notes: string[]): void {
  const complete = (c: Column, n: number) => {
    const xs = c.results.get(n);
    return xs && xs.length === rounds ? xs : undefined;
  };
  const medianOf = (c: Column, n: number, pick: (r: RoundResult) => number | undefined) => {
    const xs = complete(c, n)?.map(pick);
    return xs && xs.every((x) => x !== undefined) ? median(xs as number[]) : undefined;
  };
  const cell = (c: Column, n: number) => medianOf(c, n, (r) => r.ms)?.toFixed(0) ?? c.skipped ?? (c.failed ? "failed (below)" : "-");
  const ratio = (c: Column, floor: Column, n: number) => {
    const a = medianOf(c, n, (r) => r.ms);
    const b = medianOf(floor, n, (r) => r.ms);
    return a !== undefined && b !== undefined ? (a / b).toFixed(2) : "-";
  };
  const cost = (c: Column, n: number) => {
    const rss = medianOf(c, n, (r) => r.rssMiB);
    const cpu = medianOf(c, n, (r) => r.cpuSeconds);
    return rss === undefined || cpu === undefined ? "-" : `${rss.toFixed(0)} / ${cpu.toFixed(2)}`;
  };
  const [floor, bunlet, kubelet, podman] = columns as [Column, Column, Column, Column];
  const loadEnd = loadavg()[0]!.toFixed(2);
  console.log(`\nPod start-up: manifests written → all containers RUNNING, median of ${rounds} round(s), containerd ${containerd}`);
  console.log(`(${cpus().length} CPUs; load average at start ${loadStart}, at end ${loadEnd}: other work on the machine shows up in every column)`);
  console.log("N | CRI floor ms | bunlet ms | bunlet/floor | kubelet ms | kubelet/floor | podman ms | podman/floor | bunlet RSS MiB / CPU s | kubelet RSS MiB / CPU s");
  console.log("---|---|---|---|---|---|---|---|---|---");
  for (const n of podCounts) {
    console.log(
      `${n} | ${cell(floor, n)} | ${cell(bunlet, n)} | ${ratio(bunlet, floor, n)} | ${cell(kubelet, n)} | ${ratio(kubelet, floor, n)} | ${cell(podman, n)} | ${ratio(podman, floor, n)} | ${cost(bunlet, n)} | ${cost(kubelet, n)}`,
    );
  }
  const idlers = columns.filter((c) => c.idle);
  if (idlers.length > 0) {
    console.log(`\nIdle with ${idlePods} pods (RSS once running, RSS and mean CPU after ${idleSeconds} s idle)`);
    console.log("agent | RSS start MiB | RSS end MiB (anonymous + file-backed) | CPU cores");
    console.log("---|---|---|---");
    for (const c of idlers) {
      const i = c.idle!;
      console.log(`${c.system!.label} | ${i.rssStartMiB.toFixed(1)} | ${i.rssEndMiB.toFixed(1)} (${i.anonEndMiB.toFixed(1)} + ${i.fileEndMiB.toFixed(1)}) | ${i.cores.toFixed(4)}`);
    }
  }
  for (const note of notes) console.log(note);
  // One JSON line per row (and per idle run), for comparing runs.
  const when = new Date().toISOString();
  const meta = { when, containerd, rounds, cpus: cpus().length, loadStart: Number(loadStart), loadEnd: Number(loadEnd) };
  for (const n of podCounts) {
    const row: Record<string, unknown> = { bench: "startup", n, ...meta };
    for (const c of columns) {
      const ms = medianOf(c, n, (r) => r.ms);
      if (ms === undefined) continue;
      row[`${c.key}Ms`] = Math.round(ms);
      if (c !== floor && medianOf(floor, n, (r) => r.ms)) row[`${c.key}PerFloor`] = Number(ratio(c, floor, n));
      const rss = medianOf(c, n, (r) => r.rssMiB);
      const cpu = medianOf(c, n, (r) => r.cpuSeconds);
      if (rss !== undefined) row[`${c.key}RssMiB`] = Number(rss.toFixed(1));
      if (cpu !== undefined) row[`${c.key}CpuSeconds`] = Number(cpu.toFixed(2));
    }
    console.log(JSON.stringify(row));
  }
  for (const c of idlers) console.log(JSON.stringify({ bench: "idle", agent: c.key, ...meta, ...c.idle }));
  const failures = columns.filter((c) => c.failed);
  for (const c of failures) console.log(`${c.system?.label ?? c.key}: ${c.failed!.split("\n")[0]}`);
  if (failures.length > 0) process.exitCode = 1;
}
