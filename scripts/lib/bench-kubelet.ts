/**
 * The upstream kubelet (scripts/k8s/build.sh kubelet), standalone: a static pod path and no
 * kubeconfig, on a throwaway containerd of its own (test/harness) holding the same images, driven
 * by bench-agent.ts's rounds exactly as bunlet is. Everything the kubelet writes stays under a temp
 * dir (root dir, certs, pod logs), and it runs without QoS cgroups (`cgroupsPerQOS: false`), so
 * its pods land where bunlet's do (cgroupParent "") and two benchmarks never share a cgroup tree.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import { containerdPaths } from "../../src/containerd/index.ts";
import { createCriClient, PodSandboxState } from "../../src/cri/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";
import { unmountUnder } from "../../test/harness/cleanup.ts";
import type { TestContainerd } from "../../test/harness/containerd.ts";
import { agentRounds, type AgentHandle, type AgentSystem } from "./bench-agent.ts";
import { freePort, pollUntil } from "./bench-common.ts";
import { summarizeLog } from "./bench-log.ts";

export interface KubeletOptions {
  binary: string;
  /** Starts the kubelet's own containerd (test/harness/containerd.ts startTestContainerd). */
  start: () => Promise<TestContainerd>;
  /** Where the kubelet's stdout and stderr go; kept after the run. */
  logFile: string;
  timeoutMs: number;
  /** Node name (default bench-kubelet). */
  nodeName?: string;
  /** Extra flags, e.g. `--kubeconfig=…` to join a cluster. */
  flags?: string[];
  /** Feature gates, e.g. { EventedPLEG: true }. */
  featureGates?: Record<string, boolean>;
}

/** The KubeletConfiguration of a standalone kubelet that touches nothing outside `root`. */
export function kubeletConfig(root: string, endpoint: string, ports: { port: number; readOnly: number; healthz: number }, featureGates: Record<string, boolean>): Record<string, unknown> {
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    staticPodPath: join(root, "manifests"),
    podLogsDir: join(root, "pod-logs"),
    containerRuntimeEndpoint: endpoint,
    address: "127.0.0.1",
    port: ports.port,
    readOnlyPort: ports.readOnly,
    healthzBindAddress: "127.0.0.1",
    healthzPort: ports.healthz,
    cgroupDriver: "cgroupfs",
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failSwapOn: false,
    // This host is cgroup v1, which the kubelet refuses by default since 1.35.
    failCgroupV1: false,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: "AlwaysAllow" },
    // A shared, busy build host: neither eviction nor image GC may act during a benchmark.
    evictionHard: { "memory.available": "1Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    featureGates,
  };
}

export function createKubeletSystem(opts: KubeletOptions): AgentSystem {
  let ctd: TestContainerd | undefined;
  let root: string | undefined;
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  let agent: AgentHandle | undefined;
  const rounds = agentRounds("kubelet", opts.timeoutMs);

  const exited = () => proc === undefined || proc.exitCode !== null || proc.signalCode !== null;
  const logTail = () => (existsSync(opts.logFile) ? readFileSync(opts.logFile, "utf8").split("\n").slice(-15).join("\n") : "(no log)");
  const alive = (what: string) => {
    if (exited()) throw new Error(`kubelet exited (${proc?.exitCode ?? proc?.signalCode}) ${what}; last lines of ${opts.logFile}:\n${logTail()}`);
  };
  const started = () => {
    if (!agent) throw new Error("kubelet: setup did not finish");
    return agent;
  };

  return {
    label: "kubelet",
    async setup(signal) {
      if (!existsSync(opts.binary)) throw new Error(`${opts.binary} not found: run \`scripts/k8s/build.sh kubelet\` first`);
      ctd = await opts.start();
      signal.throwIfAborted();
      root = mkdtempSync(join(tmpdir(), "bunlet-bench-kubelet-"));
      const manifests = join(root, "manifests");
      for (const d of ["manifests", "pod-logs", "pki"]) mkdirSync(join(root, d), { recursive: true });
      const ports = { port: await freePort(), readOnly: await freePort(), healthz: await freePort() };
      const configFile = join(root, "config.yaml");
      writeFileSync(configFile, stringify(kubeletConfig(root, ctd.endpoint, ports, opts.featureGates ?? {})));
      mkdirSync(dirname(opts.logFile), { recursive: true });
      const log = openSync(opts.logFile, "w");
      proc = Bun.spawn(
        [opts.binary, `--config=${configFile}`, `--root-dir=${join(root, "kubelet")}`, `--cert-dir=${join(root, "pki")}`, `--hostname-override=${opts.nodeName ?? "bench-kubelet"}`, "--v=2", ...(opts.flags ?? [])],
        { stdout: log, stderr: log, stdin: "ignore" },
      );
      closeSync(log);
      await pollUntil(
        `kubelet /healthz on 127.0.0.1:${ports.healthz}`,
        async () => {
          alive("before /healthz answered ok");
          const res = await fetch(`http://127.0.0.1:${ports.healthz}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
          return res?.status === 200 && (await res.text()).trim() === "ok";
        },
        120_000,
        signal,
      );
      const cri = createCriClient({ endpoint: ctd.endpoint });
      agent = { pid: proc.pid, cri, manifests, netnsDir: join(containerdPaths(ctd.rootDir).state, "io.containerd.grpc.v1.cri", "netns"), alive, readOnlyPort: ports.readOnly };
    },
    agent: started,
    removePods: (pods, signal) => rounds.removePods(started(), pods, signal),
    startPods: (pods, signal) => rounds.startPods(started(), pods, signal),
    round: (pods, signal) => rounds.round(started(), pods, signal),
    idle: (pods, seconds, signal) => rounds.idle(started(), pods, seconds, signal),
    notes: () => [...rounds.notes(), ...summarizeLog("kubelet", opts.logFile)],
    async teardown() {
      if (agent && !exited()) {
        // Like bunlet, the kubelet leaves pods running when it stops: empty the manifest dir first.
        const { cri, manifests } = agent;
        rmSync(manifests, { recursive: true, force: true });
        mkdirSync(manifests);
        await pollUntil("the kubelet to stop every pod", async () => (await rounds.sandboxes(cri)).every((s) => s.state !== PodSandboxState.SANDBOX_READY), 30_000, AbortSignal.timeout(35_000)).catch(() => {});
      }
      agent?.cri.close();
      agent = undefined;
      if (proc && !exited()) {
        proc.kill("SIGTERM");
        const waited = new AbortController();
        const stopped = await Promise.race([proc.exited.then(() => true), delay(realClock, 20_000, waited.signal).then(() => false)]);
        waited.abort();
        if (!stopped) proc.kill("SIGKILL");
        await proc.exited;
      }
      // The test containerd's stop removes every sandbox and container left, then unmounts.
      await ctd?.stop();
      ctd = undefined;
      if (root) {
        unmountUnder(root);
        rmSync(root, { recursive: true, force: true });
      }
      root = undefined;
    },
  };
}
