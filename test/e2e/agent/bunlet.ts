// The built dist/bunlet as a child process: built when missing or stale, started with kubelet
// flags, its log lines kept (JSON), stopped by SIGTERM or SIGKILL like an init system would; and
// agentFixture, the containerd, directories and ports the agent e2e files share.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { ensureTestCgroupRoot, removeIdleTestCgroupRoot, removeTestCgroupRoot, testCgroupRoot } from "../../harness/cgroups.ts";
import { unmountUnder } from "../../harness/cleanup.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import type { ContainerdVersion } from "../../harness/containerd-versions.ts";
import { freePort } from "../../harness/ports.ts";
import { waitFor } from "../../harness/wait.ts";

export { freePort };

const repo = join(import.meta.dir, "../../..");
export const binary = join(repo, "dist/bunlet");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` (scripts/build.sh) unless dist/bunlet is newer than every source. */
export function ensureBuilt(): void {
  const inputs = Math.max(newestMtime(join(repo, "src")), statSync(join(repo, "package.json")).mtimeMs);
  if (existsSync(binary) && statSync(binary).mtimeMs >= inputs) return;
  const build = Bun.spawnSync(["bash", "scripts/build.sh"], { cwd: repo, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`npm run build failed (exit ${build.exitCode}):\n${build.stderr.toString()}`);
}

export interface BunletProcess {
  readonly pid: number;
  readonly readOnlyPort: number;
  /**
   * The kubelet API's port (--port) when the flags name one or a --kubeconfig (then a free port is
   * chosen, so parallel tests never fight over 10250); 0 otherwise.
   */
  readonly kubeletPort: number;
  /** Parsed JSON log lines so far (component-base's format: ts, caller, msg, v, err, keys). */
  readonly lines: Record<string, unknown>[];
  /** Resolves with the exit code (or 128+signal). */
  readonly exited: Promise<number>;
  signal(sig: "SIGTERM" | "SIGKILL" | "SIGINT"): void;
  /** Text of stderr lines that were not JSON (crashes). */
  readonly raw: string[];
}

/**
 * The cgroup root a test bunlet gets unless its flags choose one (or turn cgroupsPerQOS off): one
 * per --root-dir, so parallel and successive test runs never share or leave a /kubepods.
 */
function cgroupRootFlag(flags: string[]): string[] {
  if (flags.some((f) => f.startsWith("--cgroup-root") || f.startsWith("--cgroups-per-qos"))) return [];
  const rootDir = flags.find((f) => f.startsWith("--root-dir="))?.slice("--root-dir=".length);
  if (rootDir === undefined) return [];
  const root = testCgroupRoot(rootDir);
  ensureTestCgroupRoot(root);
  // Files whose teardown does not remove it (their own afterAll) leave it idle: gone at exit.
  if (!createdRoots.has(root)) {
    createdRoots.add(root);
    process.once("exit", () => void removeIdleTestCgroupRoot(root));
  }
  return [`--cgroup-root=${root}`];
}
const createdRoots = new Set<string>();

/** The test cgroup root of the bunlet whose --root-dir is rootDir, removed with what bunlet made under it. */
export const removeCgroupRootOf = (rootDir: string) => removeTestCgroupRoot(testCgroupRoot(rootDir));

/** `prefix` runs the binary through another command (`ip netns exec NS`: a node on its own network). */
export async function startBunlet(flags: string[], readOnlyPort: number, prefix: readonly string[] = []): Promise<BunletProcess> {
  const portFlag = flags.find((f) => f.startsWith("--port="));
  let kubeletPort = portFlag ? Number(portFlag.slice("--port=".length)) : 0;
  const extra: string[] = cgroupRootFlag(flags);
  if (!portFlag && flags.some((f) => f.startsWith("--kubeconfig"))) {
    kubeletPort = await freePort();
    extra.push(`--port=${kubeletPort}`);
  }
  const proc = Bun.spawn([...prefix, binary, "--logging-format=json", "--v=2", `--read-only-port=${readOnlyPort}`, ...extra, ...flags], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" },
  });
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          lines.push(JSON.parse(line));
        } catch {
          raw.push(line);
        }
      }
    }
  };
  // The process can be reaped before its last lines are read: `exited` waits for both pipes to
  // end, so a test that reads `lines` after it sees everything the process wrote.
  const drained = Promise.all([pump(proc.stderr), pump(proc.stdout)]);
  return {
    pid: proc.pid,
    readOnlyPort,
    kubeletPort,
    lines,
    raw,
    exited: Promise.all([proc.exited, drained]).then(([code]) => code),
    signal: (sig) => proc.kill(sig),
  };
}

/** The flags that put a bunlet's runtime, state and logs on the test's containerd and temp dir. */
export function nodeFlags(endpoint: string, dir: string, hostname: string): string[] {
  return [
    `--container-runtime-endpoint=${endpoint}`,
    `--root-dir=${join(dir, "state")}`,
    `--pod-logs-dir=${join(dir, "logs", "pods")}`,
    `--container-logs-dir=${join(dir, "logs", "containers")}`,
    `--hostname-override=${hostname}`,
  ];
}

/** Whether a JSON line names the pod `ns/name` as component-base writes klog.KObj: `{"name","namespace"}`. */
export function linePod(line: Record<string, unknown>, ref: string): boolean {
  const [namespace, name] = ref.split("/");
  return Bun.deepEquals(line.pod, { name, namespace });
}

/** component-base's JSON marks an error line by leaving out `v` (info and warnings carry v=0). */
export function isErrorLine(line: Record<string, unknown>): boolean {
  return !("v" in line);
}

/** The line bunlet's main writes before it exits when start-up failed. */
const COULD_NOT_START = "bunlet could not start; exiting";

export type Waiter = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs?: number) => Promise<T>;

/**
 * A waitFor that polls every 100 ms until check returns something other than undefined/false
 * (a thrown check counts as "not yet"). On timeout it fails with what it waited for, the last
 * error check threw and the tail of the bunlet's log, which is usually the answer; at once if
 * the bunlet logged that it could not start.
 */
export function bunletWaiter(current: () => BunletProcess | undefined, defaultTimeoutMs: number): Waiter {
  const logTail = () => {
    const bunlet = current();
    const logs = (bunlet?.lines ?? []).filter((l) => !(Number(l.v) > 0)).slice(-30).map((l) => JSON.stringify(l));
    const raw = bunlet?.raw.length ? `\nnon-JSON output:\n${bunlet.raw.join("\n")}` : "";
    return `last bunlet logs:\n${logs.join("\n")}${raw}`;
  };
  // A bunlet that could not start (a port taken, a bad flag) will not bring what is awaited.
  const giveUp = () => (current()?.lines.some((l) => l.msg === COULD_NOT_START) ? "bunlet could not start" : undefined);
  return (what, check, timeoutMs = defaultTimeoutMs) => waitFor(what, check, { timeoutMs, intervalMs: 100, detail: logTail, giveUp });
}

export interface AgentFixtureOptions {
  /** Names the test containerd (`<name>-e2e`) and the temporary directory. */
  name: string;
  /** --hostname-override: a static pod `web` shows as `web-<hostname>`. */
  hostname: string;
  /** The default timeout of `waitFor`. */
  waitTimeoutMs: number;
  /** Which containerd (containerd-versions.ts); the harness's default when left out. */
  containerdVersion?: ContainerdVersion;
  /** Given, beforeAll calls it (to write manifests, make host paths) and then starts bunlet. */
  startInBeforeAll?: (fx: AgentFixture) => void;
  /** Flags after the common ones, on every start. */
  flags?: string[];
  /** The runc the test containerd's handlers run (default: the host's). */
  runcBinary?: () => string;
}

export interface AgentFixture {
  readonly ctd: TestContainerd;
  readonly cri: CriClient;
  /** The temporary directory: manifests/, state/ (--root-dir), logs/. */
  readonly dir: string;
  /** --pod-manifest-path, an empty directory at first. */
  readonly manifests: string;
  /** The read-only port, the same across restarts of bunlet. */
  readonly port: number;
  /** The bunlet started last. */
  readonly bunlet: BunletProcess | undefined;
  /** Starts dist/bunlet on the fixture's containerd, directories and ports; extra flags last. */
  start(extra?: string[]): Promise<BunletProcess>;
  /** bunletWaiter of the current bunlet. */
  readonly waitFor: Waiter;
}

/**
 * The set-up the agent e2e files share, as beforeAll and afterAll of the calling file: dist/bunlet
 * built, a test containerd with a CRI client, a temporary directory with an empty manifest
 * directory and a free read-only port; afterwards bunlet is killed (SIGKILL, as a crash would),
 * the client closed, containerd stopped and the directory removed.
 */
export function agentFixture(opts: AgentFixtureOptions): AgentFixture {
  let ctd: TestContainerd | undefined;
  let cri: CriClient | undefined;
  let dir = "";
  let port = 0;
  let bunlet: BunletProcess | undefined;
  const ready = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the agent fixture's ${what} is used before its beforeAll ran`);
    return value;
  };

  const fx: AgentFixture = {
    get ctd() {
      return ready("containerd", ctd);
    },
    get cri() {
      return ready("CRI client", cri);
    },
    get dir() {
      return dir;
    },
    get manifests() {
      return join(dir, "manifests");
    },
    get port() {
      return port;
    },
    get bunlet() {
      return bunlet;
    },
    async start(extra: string[] = []) {
      bunlet = await startBunlet(
        [
          ...nodeFlags(fx.ctd.endpoint, dir, opts.hostname),
          `--pod-manifest-path=${fx.manifests}`,
          "--file-check-frequency=1s",
          `--healthz-port=${await freePort()}`,
          ...(opts.flags ?? []),
          ...extra,
        ],
        port,
      );
      return bunlet;
    },
    waitFor: bunletWaiter(() => bunlet, opts.waitTimeoutMs),
  };

  beforeAll(async () => {
    ensureBuilt();
    ctd = await startTestContainerd({ name: `${opts.name}-e2e`, version: opts.containerdVersion, runcBinary: opts.runcBinary?.() });
    cri = createCriClient({ endpoint: ctd.endpoint });
    const version = opts.containerdVersion === undefined ? "" : `${opts.containerdVersion}-`;
    dir = mkdtempSync(join(tmpdir(), `bunlet-${opts.name}-e2e-${version}`));
    mkdirSync(fx.manifests);
    port = await freePort();
    if (opts.startInBeforeAll) {
      opts.startInBeforeAll(fx);
      await fx.start();
    }
  }, 180_000);

  afterAll(async () => {
    bunlet?.signal("SIGKILL");
    await bunlet?.exited;
    cri?.close();
    await ctd?.stop();
    // What a killed bunlet left mounted (tmpfs volumes, subPath bind mounts) goes first, so the
    // removal never reaches through a mount into a volume or a host directory.
    if (dir) unmountUnder(dir);
    if (dir) await removeCgroupRootOf(join(dir, "state"));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  return fx;
}
