/**
 * Start-up benchmark (issue 5): N pods from manifests on bunlet's embedded containerd, timed from
 * "manifests written" to "every container RUNNING" as seen through CRI, next to the raw CRI floor
 * (the same sandboxes and containers sent straight to a containerd, same concurrency) and
 * `podman kube play` on the same images, all measured in the same run. Prints medians and ratios
 * to the floor, and bunlet's memory after the run. Not a test: it asserts nothing about speed.
 *
 *   bun scripts/bench-startup.ts [--pods 1,10,30] [--rounds 3] [--systems floor,bunlet,podman]
 *                                [--bunlet dist/bunlet] [--timeout 120]
 *
 * Needs root, containerd, runc and the CNI plugins (scripts/install-deps.sh), and dist/bunlet
 * (npm run build). Everything it starts is torn down at the end, on failure and on Ctrl-C.
 */
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { startTestContainerd } from "../test/harness/containerd.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, REPO_ROOT } from "../test/harness/images.ts";
import { createBunletSystem } from "./lib/bench-bunlet.ts";
import { median, podSet, type BenchSystem } from "./lib/bench-common.ts";
import { createFloorSystem } from "./lib/bench-floor.ts";
import { createPodmanSystem } from "./lib/bench-podman.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const podCounts = arg("pods", "1,10,30").split(",").map(Number);
const rounds = Number(arg("rounds", "3"));
const wanted = new Set(arg("systems", "floor,bunlet,podman").split(","));
const timeoutMs = Number(arg("timeout", "120")) * 1000;
if (podCounts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1 || !(timeoutMs > 0)) {
  console.error("usage: bun scripts/bench-startup.ts [--pods 1,10,30] [--rounds 3] [--systems floor,bunlet,podman] [--bunlet dist/bunlet] [--timeout 120]");
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
  key: "floor" | "bunlet" | "podman";
  system?: BenchSystem;
  skipped?: string;
  failed?: string;
  ms: Map<number, number[]>;
}

const columns: Column[] = [
  { key: "floor", system: createFloorSystem({ start: () => startTestContainerd({ name: "bench-floor" }), timeoutMs }), ms: new Map() },
  {
    key: "bunlet",
    system: createBunletSystem({
      binary: resolve(arg("bunlet", `${REPO_ROOT}/dist/bunlet`)),
      images: [BUSYBOX_TAR, PAUSE_TAR],
      logFile: `${REPO_ROOT}/.bench/startup/bunlet.log`,
      timeoutMs,
    }),
    ms: new Map(),
  },
  Bun.which("podman")
    ? { key: "podman", system: createPodmanSystem({ busyboxTar: BUSYBOX_TAR, pauseTar: PAUSE_TAR, timeoutMs }), ms: new Map() }
    : { key: "podman", skipped: "podman not installed: skipped", ms: new Map() },
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
          const ms = await c.system!.round(podSet(n, `n${n}-r${r}`), shutdown.signal);
          c.ms.set(n, [...(c.ms.get(n) ?? []), ms]);
          console.error(`bench-startup: ${c.system!.label}: ${n} pods, round ${r + 1}/${rounds}: ${ms.toFixed(0)} ms`);
        } catch (err) {
          if (shutdown.signal.aborted) throw err;
          c.failed = `${n} pods, round ${r + 1} failed: ${errorText(err)}`;
          console.error(`bench-startup: ${c.system!.label}: ${c.failed}`);
        }
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
  const cell = (c: Column, n: number) => {
    const xs = c.ms.get(n);
    if (xs && xs.length === rounds) return median(xs).toFixed(0);
    return c.skipped ?? (c.failed ? "failed (below)" : "-");
  };
  const ratio = (c: Column, floor: Column, n: number) => {
    const a = c.ms.get(n);
    const b = floor.ms.get(n);
    if (!a || !b || a.length !== rounds || b.length !== rounds) return "-";
    return (median(a) / median(b)).toFixed(2);
  };
  const [floor, bunlet, podman] = columns as [Column, Column, Column];
  console.log(`\nPod start-up: manifests written → all containers RUNNING, median of ${rounds} round(s)`);
  console.log(`(${cpus().length} CPUs; load average at start ${loadStart}, at end ${loadavg()[0]!.toFixed(2)}: other work on the machine shows up in every column)`);
  console.log("N | CRI floor ms | bunlet ms | bunlet/floor | podman ms | podman/floor");
  console.log("---|---|---|---|---|---");
  for (const n of podCounts) {
    console.log(`${n} | ${cell(floor, n)} | ${cell(bunlet, n)} | ${ratio(bunlet, floor, n)} | ${cell(podman, n)} | ${ratio(podman, floor, n)}`);
  }
  for (const note of notes) console.log(note);
  const failures = columns.filter((c) => c.failed);
  for (const c of failures) console.log(`${c.system?.label ?? c.key}: ${c.failed!.split("\n")[0]}`);
  if (failures.length > 0) process.exitCode = 1;
}
