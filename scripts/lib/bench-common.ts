/**
 * Shared pieces of scripts/bench-startup.ts: the pods every system starts, the CRI observer that
 * decides when "all containers are running", and small process helpers. Everything here is
 * measurement tooling, so it uses the real clock on purpose.
 */
import { readFileSync } from "node:fs";
import { stringify } from "yaml";
import { ContainerState, labels, type CriClient } from "../../src/cri/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";

/** The test harness's: outside the ephemeral range, never the same twice in a process. */
export { freePort } from "../../test/harness/ports.ts";

export const BUSYBOX_IMAGE = "docker.io/library/busybox:1.36";
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10.2";
export const CONTAINER_NAME = "sleeper";
export const COMMAND = ["sleep", "3600"];
/** Short, so pods that ignore SIGTERM (sleep as PID 1) go quickly between rounds. */
export const GRACE_SECONDS = 1;
/**
 * bunlet's flags for a benchmark: no kubepods cgroup tree (the kubelet beside it has
 * cgroupsPerQOS: false too). Under the host's shared /kubepods, bunlet's container manager takes
 * the pod cgroups of every other agent on the host for orphans and kills their processes.
 */
export const NO_QOS_CGROUPS = ["--cgroups-per-qos=false", "--enforce-node-allocatable=none"];
/** How often the observers look; also the resolution of every figure. */
export const POLL_MS = 20;
/**
 * The benchmark's own requests to an agent or its runtime (lists, /metrics): on a shared machine
 * under load a list of 250 pods can take many seconds, and a timeout there ends a 50-minute run.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** One round: ms from "pods requested" to "all containers running", and the agent's cost. */
export interface RoundResult {
  ms: number;
  /** The agent's RSS once every container runs (systems with an agent process only). */
  rssMiB?: number;
  /** CPU time (user + system) the agent used during the round. */
  cpuSeconds?: number;
}

/** An agent holding N running pods and otherwise left alone. */
export interface IdleResult {
  pods: number;
  seconds: number;
  rssStartMiB: number;
  rssEndMiB: number;
  /** The end RSS's anonymous and file-backed parts. */
  anonEndMiB: number;
  fileEndMiB: number;
  /** Mean CPU use over the idle time, in cores. */
  cores: number;
}

/** One system under test. */
export interface BenchSystem {
  readonly label: string;
  setup(signal: AbortSignal): Promise<void>;
  round(pods: PodSet, signal: AbortSignal): Promise<RoundResult>;
  /** Starts `pods`, then measures the agent idling for `seconds` (agents only). */
  idle?(pods: PodSet, seconds: number, signal: AbortSignal): Promise<IdleResult>;
  /** Idempotent and safe after a failed setup: removes everything the system created. */
  teardown(): Promise<void>;
  /** Extra lines for the report (memory, anomalies), read after the last round. */
  notes?(): string[];
}

/** The pods of one round: one namespace per round, so leftovers of another round never count. */
export interface PodSet {
  namespace: string;
  names: string[];
}

export function podSet(n: number, tag: string): PodSet {
  return { namespace: `bench-${tag}`, names: Array.from({ length: n }, (_, i) => `p${i}`) };
}

/** A static pod manifest: one busybox container sleeping, image already present. */
export function podManifest(namespace: string, name: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { app: "bench-startup" } },
    spec: {
      terminationGracePeriodSeconds: GRACE_SECONDS,
      containers: [{ name: CONTAINER_NAME, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: COMMAND }],
    },
  };
}

export function podYaml(namespace: string, name: string): string {
  return stringify(podManifest(namespace, name));
}

/** RUNNING containers of `namespace` (by the kubelet's namespace label), as CRI lists them. */
export async function countRunning(cri: CriClient, namespace: string, signal: AbortSignal): Promise<number> {
  const { containers } = await cri.runtime.listContainers(
    { filter: { state: { state: ContainerState.CONTAINER_RUNNING }, labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } },
    { signal, timeoutMs: REQUEST_TIMEOUT_MS },
  );
  return containers.length;
}

/** Polls `check` every POLL_MS until it is true; returns performance.now() of the first true. */
export async function pollUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, signal: AbortSignal): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    signal.throwIfAborted();
    if (await check()) return performance.now();
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await delay(realClock, POLL_MS, signal);
  }
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, capturing output; never throws for a non-zero exit. */
export async function exec(cmd: string[], env?: Record<string, string | undefined>): Promise<CommandResult> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env: env ? { ...process.env, ...env } : undefined });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Like exec, but a non-zero exit is an error naming the command and its stderr. */
export async function execOk(cmd: string[], env?: Record<string, string | undefined>): Promise<string> {
  const r = await exec(cmd, env);
  if (r.code !== 0) throw new Error(`${cmd.join(" ")} exited ${r.code}: ${(r.stderr || r.stdout).trim().slice(-800)}`);
  return r.stdout;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * VmRSS and VmHWM of a process in MiB, and the two parts of RSS: anonymous memory (heaps) and
 * file-backed pages (the executable's code and data as far as it was touched); undefined once
 * the process is gone.
 */
export function processMemory(pid: number): { rssMiB: number; hwmMiB: number; anonMiB: number; fileMiB: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kb("VmRSS") / 1024, hwmMiB: kb("VmHWM") / 1024, anonMiB: kb("RssAnon") / 1024, fileMiB: kb("RssFile") / 1024 };
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** utime + stime of a process in seconds, or undefined once it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

