/**
 * bunlet itself: the built binary with its embedded containerd in a temp root dir and an empty
 * manifest dir. A round writes N manifests at once and is timed until CRI (on bunlet's own
 * containerd socket) lists every container RUNNING; then the manifests go and the round ends when
 * bunlet has torn the pods down. bunlet's output goes to a log file kept after the run.
 */
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
  let removedSandboxes = 0;

  const exited = () => proc === undefined || proc.exitCode !== null || proc.signalCode !== null;
  const logTail = () => (existsSync(opts.logFile) ? readFileSync(opts.logFile, "utf8").split("\n").slice(-15).join("\n") : "(no log)");
  const alive = (what: string) => {
    if (exited()) throw new Error(`bunlet exited (${proc?.exitCode ?? proc?.signalCode}) ${what}; last lines of ${opts.logFile}:\n${logTail()}`);
  };

  async function sandboxes(namespace?: string) {
    const filter = namespace ? { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } : {};
    return (await cri!.runtime.listPodSandbox({ filter }, { timeoutMs: 10_000 })).items;
  }

  /**
   * Removes sandboxes through CRI (stopping the ones still READY first, which runs CNI DEL). One
   * retry: bunlet's housekeeping may be stopping the same sandbox at that moment.
   */
  async function removeSandboxes(namespace?: string): Promise<number> {
    const items = await sandboxes(namespace);
    const remove = async (id: string, ready: boolean) => {
      if (ready) await cri!.runtime.stopPodSandbox({ podSandboxId: id });
      await cri!.runtime.removePodSandbox({ podSandboxId: id });
    };
    await Promise.all(
      items.map(async (s) => {
        const ready = s.state === PodSandboxState.SANDBOX_READY;
        await remove(s.id, ready).catch(async () => {
          await delay(realClock, 500);
          await remove(s.id, ready);
        });
      }),
    );
    return items.length;
  }

  const countAll = async (namespace: string) =>
    (await cri!.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } }, { timeoutMs: 10_000 })).containers.length;

  /** Network namespaces containerd still holds: a sandbox's goes last in StopPodSandbox, after CNI DEL. */
  const netnsLeft = () => {
    const dir = join(containerdPaths(root!).state, "io.containerd.grpc.v1.cri", "netns");
    return existsSync(dir) ? readdirSync(dir).length : 0;
  };

  /**
   * Deletes the round's manifests and waits until bunlet has stopped its pods: no RUNNING
   * container, no READY sandbox, and no network namespace left, i.e. StopPodSandbox finished.
   * (A sandbox turns NOTREADY before its CNI DEL, so a benchmark that acted on NOTREADY alone
   * would race bunlet's own StopPodSandbox.)
   */
  async function removePods(pods: PodSet, signal: AbortSignal): Promise<void> {
    for (const name of pods.names) rmSync(join(manifests, `${pods.namespace}-${name}.yaml`), { force: true });
    const t0 = performance.now();
    const gone = await pollUntil(
      `bunlet to stop the pods of ${pods.namespace} after their manifests were deleted`,
      async () => {
        alive("while stopping pods");
        if (netnsLeft() > 0) return false;
        const ready = (await sandboxes(pods.namespace)).filter((s) => s.state === PodSandboxState.SANDBOX_READY);
        return ready.length === 0 && (await countRunning(cri!, pods.namespace, signal)) === 0;
      },
      opts.timeoutMs,
      signal,
    );
    teardownMs.push(gone - t0);
    // bunlet's container deletor removes dead containers of deleted pods on the next relist's
    // ContainerDied (1 s period); removing their sandboxes under it would race it, as
    // RemovePodSandbox removes the containers too. Like the kubelet, it may keep the last one.
    await pollUntil("container removal", async () => (await countAll(pods.namespace)) === 0, 2_500, signal).catch(() => undefined);
    // Like the kubelet, bunlet removes the stopped sandboxes of deleted pods only in its container
    // GC (once a minute); the benchmark removes them now so every round starts on a clean runtime.
    removedSandboxes += await removeSandboxes(pods.namespace);
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
      // A private copy: other work may rebuild dist/bunlet while the benchmark runs.
      const binary = join(root, "bunlet");
      copyFileSync(opts.binary, binary);
      chmodSync(binary, 0o755);
      const port = await freePort();
      const log = openSync(opts.logFile, "w");
      proc = Bun.spawn(
        [
          binary,
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
      if (removedSandboxes > 0) out.push(`bunlet: ${removedSandboxes} stopped sandbox(es) of deleted pods removed by the benchmark between rounds (bunlet's GC runs once a minute)`);
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
      // If bunlet died, its containerd may still be running: kill it, but only if the pid in the
      // file is still a containerd started with this root's config (pids get reused).
      const { pidFile, configFile } = containerdPaths(root);
      const pid = existsSync(pidFile) ? Number.parseInt(readFileSync(pidFile, "utf8"), 10) : Number.NaN;
      if (Number.isInteger(pid) && pid > 1) {
        try {
          if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(configFile)) process.kill(pid, "SIGKILL");
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
