/**
 * bunlet itself: the built binary with its embedded containerd in a temp root dir and an empty
 * manifest dir, driven by bench-agent.ts's rounds. bunlet's output goes to a log file kept after
 * the run.
 */
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { containerdPaths } from "../../src/containerd/index.ts";
import { createCriClient, PodSandboxState, type CriClient } from "../../src/cri/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";
import { deleteLink, deleteNatRulesFor, killShims, unmountUnder } from "../../test/harness/cleanup.ts";
import { allocateTestNetwork, type TestNetwork } from "../../test/harness/network.ts";
import { agentRounds, type AgentHandle, type AgentSystem } from "./bench-agent.ts";
import { BUSYBOX_IMAGE, freePort, NO_QOS_CGROUPS, PAUSE_IMAGE, pollUntil } from "./bench-common.ts";
import { summarizeLog } from "./bench-log.ts";

export interface BunletOptions {
  binary: string;
  /** Image tarballs copied to `<root-dir>/images`, which the embedded containerd preloads. */
  images: string[];
  /** Where bunlet's stdout and stderr go; kept after the run. */
  logFile: string;
  timeoutMs: number;
  /** Node name (default bench-node). */
  nodeName?: string;
  /** Extra flags, e.g. `--feature-gates=EventedPLEG=false`. */
  flags?: string[];
  /** Extra environment, e.g. BUN_JSC_* settings being profiled. */
  env?: Record<string, string>;
}

export function createBunletSystem(opts: BunletOptions): AgentSystem {
  let root: string | undefined;
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  let agent: AgentHandle | undefined;
  /** A bridge and /24 of its own (as the e2e harness's), so benchmarks and tests never share one. */
  let net: TestNetwork | undefined;
  const rounds = agentRounds("bunlet", opts.timeoutMs);

  const exited = () => proc === undefined || proc.exitCode !== null || proc.signalCode !== null;
  const logTail = () => (existsSync(opts.logFile) ? readFileSync(opts.logFile, "utf8").split("\n").slice(-15).join("\n") : "(no log)");
  const alive = (what: string) => {
    if (exited()) throw new Error(`bunlet exited (${proc?.exitCode ?? proc?.signalCode}) ${what}; last lines of ${opts.logFile}:\n${logTail()}`);
  };
  const started = () => {
    if (!agent) throw new Error("bunlet: setup did not finish");
    return agent;
  };

  return {
    label: "bunlet",
    async setup(signal) {
      if (!existsSync(opts.binary)) throw new Error(`${opts.binary} not found: run \`npm run build\` first`);
      net = allocateTestNetwork();
      root = mkdtempSync(join(tmpdir(), "bunlet-bench-"));
      const manifests = join(root, "manifests");
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
          `--node-name=${opts.nodeName ?? "bench-node"}`,
          `--cni-bridge-name=${net.bridgeName}`,
          `--pod-cidr=${net.podSubnet}`,
          // No kubepods tree, as the kubelet beside it runs (cgroupsPerQOS: false): a second agent
          // under the host's /kubepods would take every other node's pod cgroups there for orphans
          // and kill their processes (it did, to a conformance run, on 26 Nov).
          ...NO_QOS_CGROUPS,
          "--v=2",
          ...(opts.flags ?? []),
        ],
        { stdout: log, stderr: log, stdin: "ignore", env: opts.env ? { ...process.env, ...opts.env } : undefined },
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
      const cri: CriClient = createCriClient({ endpoint: `unix://${containerdPaths(root).socketPath}` });
      agent = { pid: proc.pid, cri, manifests, netnsDir: join(containerdPaths(root).state, "io.containerd.grpc.v1.cri", "netns"), alive, readOnlyPort: port };
      await pollUntil(
        "the preloaded busybox and pause images",
        async () => {
          for (const image of [BUSYBOX_IMAGE, PAUSE_IMAGE]) {
            if (!(await cri.image.imageStatus({ image: { image } }, { timeoutMs: 10_000 })).image) return false;
          }
          return true;
        },
        60_000,
        signal,
      );
    },
    agent: started,
    removePods: (pods, signal) => rounds.removePods(started(), pods, signal),
    startPods: (pods, signal) => rounds.startPods(started(), pods, signal),
    round: (pods, signal) => rounds.round(started(), pods, signal),
    idle: (pods, seconds, signal) => rounds.idle(started(), pods, seconds, signal),
    notes: () => [...rounds.notes(), ...summarizeLog("bunlet", opts.logFile)],
    async teardown() {
      if (!root) {
        net?.release();
        net = undefined;
        return;
      }
      const socketPath = containerdPaths(root).socketPath;
      if (!exited() && agent) {
        // bunlet leaves pods running on SIGTERM by design: remove them first.
        const { cri, manifests } = agent;
        rmSync(manifests, { recursive: true, force: true });
        mkdirSync(manifests);
        await pollUntil("bunlet to stop every pod", async () => (await rounds.sandboxes(cri)).every((s) => s.state !== PodSandboxState.SANDBOX_READY), 30_000, AbortSignal.timeout(35_000)).catch(() => {});
        await rounds.removeSandboxes(cri).catch(() => {});
      }
      agent?.cri.close();
      agent = undefined;
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
      if (net) {
        deleteLink(net.bridgeName);
        deleteNatRulesFor(net.podSubnet);
        net.release();
        net = undefined;
      }
      root = undefined;
    },
  };
}
