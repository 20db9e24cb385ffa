/**
 * bunlet itself: the built binary with its embedded containerd in a temp root dir and an empty
 * manifest dir. A round writes N manifests at once and is timed until CRI (on bunlet's own
 * containerd socket) lists every container RUNNING; then the manifests go and the round ends when
 * bunlet has torn the pods down. bunlet's output goes to a log file kept after the run.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, renameSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { containerdPaths, DEFAULT_BRIDGE_NAME, DEFAULT_POD_SUBNET } from "../../src/containerd/index.ts";
import { createCriClient, labels, PodSandboxState, type CriClient } from "../../src/cri/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";
import { deleteLink, deleteNatRulesFor, killShims, unmountUnder } from "../../test/harness/cleanup.ts";
import { BUSYBOX_IMAGE, countRunning, median, PAUSE_IMAGE, pollUntil, podYaml, processMemory, type BenchSystem, type PodSet } from "./bench-common.ts";
import { summarizeLog } from "./bench-log.ts";

export interface BunletOptions {
  binary: string;
  /** Image tarballs copied to `<root-dir>/images`, which the embedded containerd preloads. */
  images: string[];
  /** Where bunlet's stdout and stderr go; kept after the run. */
  logFile: string;
  timeoutMs: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

const linkExists = (name: string) => Bun.spawnSync(["ip", "link", "show", name], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
const linkPorts = (bridge: string) =>
  Bun.spawnSync(["ip", "-o", "link", "show", "master", bridge], { stdout: "pipe", stderr: "ignore" }).stdout.toString().split("\n").filter(Boolean).length;

export function createBunletSystem(opts: BunletOptions): BenchSystem {
  let root: string | undefined;
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  let cri: CriClient | undefined;
  let createdBridge = false;
  let manifests = "";
  let memory: string | undefined;
  const teardownMs: number[] = [];
  const leftovers: string[] = [];

  const exited = () => proc === undefined || proc.exitCode !== null || proc.signalCode !== null;
  const logTail = () => (existsSync(opts.logFile) ? readFileSync(opts.logFile, "utf8").split("\n").slice(-15).join("\n") : "(no log)");
  const alive = (what: string) => {
    if (exited()) throw new Error(`bunlet exited (${proc?.exitCode ?? proc?.signalCode}) ${what}; last lines of ${opts.logFile}:\n${logTail()}`);
  };

  async function sandboxes(namespace?: string) {
    const filter = namespace ? { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } : {};
    return (await cri!.runtime.listPodSandbox({ filter }, { timeoutMs: 10_000 })).items;
  }

  /** Stops and removes sandboxes through CRI (CNI DEL included), for what bunlet left behind. */
  async function removeSandboxes(namespace?: string): Promise<number> {
    const items = await sandboxes(namespace);
    await Promise.all(
      items.map(async (s) => {
        await cri!.runtime.stopPodSandbox({ podSandboxId: s.id });
        await cri!.runtime.removePodSandbox({ podSandboxId: s.id });
      }),
    );
    return items.length;
  }

  /** Deletes the round's manifests and waits until bunlet stopped its pods; returns how long it took. */
  async function removePods(pods: PodSet, signal: AbortSignal): Promise<void> {
    for (const name of pods.names) rmSync(join(manifests, `${pods.namespace}-${name}.yaml`), { force: true });
    const t0 = performance.now();
    const gone = await pollUntil(
      `bunlet to stop the pods of ${pods.namespace} after their manifests were deleted`,
      async () => {
        alive("while stopping pods");
        const ready = (await sandboxes(pods.namespace)).filter((s) => s.state === PodSandboxState.SANDBOX_READY);
        return ready.length === 0 && (await countRunning(cri!, pods.namespace, signal)) === 0;
      },
      opts.timeoutMs,
      signal,
    );
    teardownMs.push(gone - t0);
    // The kubelet removes the sandboxes of deleted pods; give bunlet a moment, then do it for it
    // so that the next round does not start next to dead sandboxes.
    const removed = await pollUntil("sandbox removal", async () => (await sandboxes(pods.namespace)).length === 0, 10_000, signal).catch(() => undefined);
    if (removed === undefined) {
      const n = await removeSandboxes(pods.namespace);
      leftovers.push(`${n} stopped sandbox(es) of ${pods.namespace} still there 10 s after the pods stopped`);
    }
  }

  return {
    label: "bunlet",
    async setup(signal) {
      if (!existsSync(opts.binary)) throw new Error(`${opts.binary} not found: run \`npm run build\` first`);
      if (linkExists(DEFAULT_BRIDGE_NAME) && linkPorts(DEFAULT_BRIDGE_NAME) > 0) {
        throw new Error(`bridge ${DEFAULT_BRIDGE_NAME} already has pods attached (another bunlet is running?); bunlet has no setting for its bridge, so the benchmark would share it`);
      }
      createdBridge = !linkExists(DEFAULT_BRIDGE_NAME);
      root = mkdtempSync(join(tmpdir(), "bunlet-bench-"));
      manifests = join(root, "manifests");
      for (const d of ["images", "manifests", "pod-logs", "container-logs"]) mkdirSync(join(root, d), { recursive: true });
      for (const tar of opts.images) copyFileSync(tar, join(root, "images", basename(tar)));
      mkdirSync(dirname(opts.logFile), { recursive: true });
      const port = await freePort();
      const log = openSync(opts.logFile, "w");
      proc = Bun.spawn(
        [
          opts.binary,
          `--pod-manifest-path=${manifests}`,
          `--root-dir=${root}`,
          `--pod-logs-dir=${join(root, "pod-logs")}`,
          `--container-logs-dir=${join(root, "container-logs")}`,
          "--address=127.0.0.1",
          `--read-only-port=${port}`,
          "--healthz-port=0",
          "--node-name=bench-node",
          "--v=2",
        ],
        { stdout: log, stderr: log, stdin: "ignore" },
      );
      closeSync(log);
      await pollUntil(
        `bunlet /healthz on 127.0.0.1:${port}`,
        async () => {
          alive("before /healthz answered ok");
          const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
          return res?.status === 200 && (await res.text()).trim() === "ok";
        },
        60_000,
        signal,
      );
      cri = createCriClient({ endpoint: `unix://${containerdPaths(root).socketPath}` });
      await pollUntil(
        "the preloaded busybox and pause images",
        async () => {
          for (const image of [BUSYBOX_IMAGE, PAUSE_IMAGE]) {
            if (!(await cri!.image.imageStatus({ image: { image } }, { timeoutMs: 10_000 })).image) return false;
          }
          return true;
        },
        60_000,
        signal,
      );
    },
    async round(pods, signal) {
      alive("before the round");
      const t0 = performance.now();
      // Written under a dot-name and renamed, so the file source never reads half a manifest.
      for (const name of pods.names) {
        const file = join(manifests, `${pods.namespace}-${name}.yaml`);
        const tmp = join(manifests, `.${pods.namespace}-${name}.yaml.tmp`);
        writeFileSync(tmp, podYaml(pods.namespace, name));
        renameSync(tmp, file);
      }
      let seen: number;
      try {
        seen = await pollUntil(
          `${pods.names.length} RUNNING containers in ${pods.namespace} (bunlet)`,
          async () => {
            alive("while starting pods");
            return (await countRunning(cri!, pods.namespace, signal)) === pods.names.length;
          },
          opts.timeoutMs,
          signal,
        );
      } catch (err) {
        if (!exited()) await removePods(pods, signal).catch(() => {});
        throw err;
      }
      const mem = processMemory(proc!.pid);
      if (mem) memory = `bunlet RSS with ${pods.names.length} pods running: ${mem.rssMiB.toFixed(1)} MiB (peak ${mem.hwmMiB.toFixed(1)} MiB)`;
      await removePods(pods, signal);
      return seen - t0;
    },
    notes() {
      const out: string[] = [];
      if (memory) out.push(memory);
      if (teardownMs.length > 0) out.push(`bunlet: manifest deleted → pods stopped, median ${median(teardownMs).toFixed(0)} ms over ${teardownMs.length} round(s)`);
      out.push(...new Set(leftovers).values());
      out.push(...summarizeLog(opts.logFile));
      return out;
    },
    async teardown() {
      if (!root) return;
      const socketPath = containerdPaths(root).socketPath;
      if (!exited() && cri) {
        // bunlet leaves pods running on SIGTERM by design: remove them first.
        rmSync(manifests, { recursive: true, force: true });
        mkdirSync(manifests);
        await pollUntil("bunlet to stop every pod", async () => (await sandboxes()).every((s) => s.state !== PodSandboxState.SANDBOX_READY), 30_000, AbortSignal.timeout(35_000)).catch(() => {});
        await removeSandboxes().catch(() => {});
      }
      cri?.close();
      cri = undefined;
      if (!exited()) {
        proc!.kill("SIGTERM");
        const waited = new AbortController();
        const stopped = await Promise.race([proc!.exited.then(() => true), delay(realClock, 20_000, waited.signal).then(() => false)]);
        waited.abort();
        if (!stopped) proc!.kill("SIGKILL");
        await proc!.exited;
      }
      // If bunlet died, its containerd may still be running.
      const pidFile = containerdPaths(root).pidFile;
      const pid = existsSync(pidFile) ? Number.parseInt(readFileSync(pidFile, "utf8"), 10) : Number.NaN;
      if (Number.isInteger(pid) && pid > 1) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone, as it should be after bunlet's own shutdown
        }
      }
      killShims(socketPath);
      unmountUnder(root);
      rmSync(root, { recursive: true, force: true });
      if (!socketPath.startsWith(root)) rmSync(dirname(socketPath), { recursive: true, force: true });
      if (createdBridge) {
        deleteLink(DEFAULT_BRIDGE_NAME);
        // host-local hands out 10.88.0.x first, so rules of pods never torn down mention that /24.
        deleteNatRulesFor(DEFAULT_POD_SUBNET.replace(/\.0\.0\/16$/, ".0.0/24"));
      }
      root = undefined;
    },
  };
}
