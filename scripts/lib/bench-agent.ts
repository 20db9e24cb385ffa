/**
 * What bunlet and the upstream kubelet have in common in the start-up benchmark: an agent process
 * that reads a static-pod directory and drives a containerd of its own through CRI. A round writes
 * N manifests and is timed until CRI lists every container RUNNING; then the manifests go and the
 * round ends once the agent has stopped the pods. The agent's RSS and CPU are read from /proc
 * beside each round, and `idle` holds N pods for a while to measure the agent at rest.
 */
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isNotFound, labels, PodSandboxState, type CriClient } from "../../src/cri/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";
import { REQUEST_TIMEOUT_MS, countRunning, median, pollUntil, podYaml, processCpuSeconds, processMemory, type BenchSystem, type IdleResult, type PodSet, type RoundResult } from "./bench-common.ts";

/** One running agent, as the system that started it describes it. */
export interface AgentHandle {
  pid: number;
  cri: CriClient;
  manifests: string;
  /** containerd's netns dir: a sandbox's network namespace goes last in StopPodSandbox, after CNI DEL. */
  netnsDir: string;
  /** Throws, naming what was going on and the agent's last log lines, once the agent has exited. */
  alive(what: string): void;
  /** The read-only port (/metrics). */
  readOnlyPort: number;
}

/** N pods started and left running: how long, the agent's CPU for it, and its memory right after. */
export interface StartResult {
  ms: number;
  cpuSeconds: number;
  rssMiB: number;
  anonMiB: number;
}

/** A system with an agent process (bunlet, the kubelet): other benchmarks drive it directly. */
export interface AgentSystem extends BenchSystem {
  /** The running agent; throws before setup has finished. */
  agent(): AgentHandle;
  /** Deletes the pods' manifests (`<namespace>-<name>.yaml`) and waits until the agent stopped them. */
  removePods(pods: PodSet, signal: AbortSignal): Promise<void>;
  /** Writes the pods' manifests and waits until every container runs; the pods stay (removePods ends them). */
  startPods(pods: PodSet, signal: AbortSignal): Promise<StartResult>;
}

export function agentRounds(label: string, timeoutMs: number) {
  const teardownMs: number[] = [];
  let removedSandboxes = 0;
  let lastMemory: string | undefined;

  async function sandboxes(cri: CriClient, namespace?: string) {
    const filter = namespace ? { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } : {};
    return (await cri.runtime.listPodSandbox({ filter }, { timeoutMs: REQUEST_TIMEOUT_MS })).items;
  }

  /**
   * Removes sandboxes through CRI (stopping the ones still READY first, which runs CNI DEL). Up to
   * five tries a second apart, and NotFound counts as removed: the agent may be stopping or
   * removing the same sandbox or its containers at that moment (with 250 pods containerd answered
   * "container is already in removing state" past a single retry).
   */
  async function removeSandboxes(cri: CriClient, namespace?: string): Promise<number> {
    const items = await sandboxes(cri, namespace);
    const remove = async (id: string, ready: boolean) => {
      for (let attempt = 1; ; attempt++) {
        try {
          if (ready) await cri.runtime.stopPodSandbox({ podSandboxId: id });
          await cri.runtime.removePodSandbox({ podSandboxId: id });
          return;
        } catch (err) {
          if (isNotFound(err)) return;
          if (attempt === 5) throw err;
          await delay(realClock, 1_000);
        }
      }
    };
    await Promise.all(items.map((s) => remove(s.id, s.state === PodSandboxState.SANDBOX_READY)));
    return items.length;
  }

  const countAll = async (cri: CriClient, namespace: string) =>
    (await cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } }, { timeoutMs: REQUEST_TIMEOUT_MS })).containers.length;

  const netnsLeft = (dir: string) => (existsSync(dir) ? readdirSync(dir).length : 0);

  /** Written under a dot-name and renamed, so a file source never reads half a manifest (both skip dot-files). */
  function writeManifests(agent: AgentHandle, pods: PodSet): void {
    for (const name of pods.names) {
      const file = join(agent.manifests, `${pods.namespace}-${name}.yaml`);
      const tmp = join(agent.manifests, `.${pods.namespace}-${name}.yaml.tmp`);
      writeFileSync(tmp, podYaml(pods.namespace, name));
      renameSync(tmp, file);
    }
  }

  async function waitRunning(agent: AgentHandle, pods: PodSet, signal: AbortSignal): Promise<number> {
    return pollUntil(
      `${pods.names.length} RUNNING containers in ${pods.namespace} (${label})`,
      async () => {
        agent.alive("while starting pods");
        return (await countRunning(agent.cri, pods.namespace, signal)) === pods.names.length;
      },
      timeoutMs,
      signal,
    );
  }

  /**
   * Deletes the round's manifests and waits until the agent has stopped its pods: no RUNNING
   * container, no READY sandbox, and no network namespace left, i.e. StopPodSandbox finished.
   * (A sandbox turns NOTREADY before its CNI DEL, so a benchmark that acted on NOTREADY alone
   * would race the agent's own StopPodSandbox.)
   */
  async function removePods(agent: AgentHandle, pods: PodSet, signal: AbortSignal): Promise<void> {
    for (const name of pods.names) rmSync(join(agent.manifests, `${pods.namespace}-${name}.yaml`), { force: true });
    const t0 = performance.now();
    const gone = await pollUntil(
      `${label} to stop the pods of ${pods.namespace} after their manifests were deleted`,
      async () => {
        agent.alive("while stopping pods");
        if (netnsLeft(agent.netnsDir) > 0) return false;
        const ready = (await sandboxes(agent.cri, pods.namespace)).filter((s) => s.state === PodSandboxState.SANDBOX_READY);
        return ready.length === 0 && (await countRunning(agent.cri, pods.namespace, signal)) === 0;
      },
      timeoutMs,
      signal,
    );
    teardownMs.push(gone - t0);
    // Both agents remove dead containers of deleted pods after a relist's ContainerDied; removing
    // their sandboxes under them would race that, as RemovePodSandbox removes the containers too.
    await pollUntil("container removal", async () => (await countAll(agent.cri, pods.namespace)) === 0, 2_500, signal).catch(() => undefined);
    // Both remove the stopped sandboxes of deleted pods only in their container GC (once a
    // minute); the benchmark removes them now so every round starts on a clean runtime.
    removedSandboxes += await removeSandboxes(agent.cri, pods.namespace);
  }

  return {
    removeSandboxes,
    sandboxes,
    removePods,
    async startPods(agent: AgentHandle, pods: PodSet, signal: AbortSignal): Promise<StartResult> {
      agent.alive("before the burst");
      const cpu0 = processCpuSeconds(agent.pid);
      const t0 = performance.now();
      writeManifests(agent, pods);
      const seen = await waitRunning(agent, pods, signal);
      const cpu1 = processCpuSeconds(agent.pid);
      const mem = processMemory(agent.pid);
      if (cpu0 === undefined || cpu1 === undefined || mem === undefined) throw new Error(`${label} (pid ${agent.pid}) vanished while starting pods`);
      return { ms: seen - t0, cpuSeconds: cpu1 - cpu0, rssMiB: mem.rssMiB, anonMiB: mem.anonMiB };
    },
    /** Manifests written → all RUNNING; the agent's RSS then, and its CPU over the round. */
    async round(agent: AgentHandle, pods: PodSet, signal: AbortSignal): Promise<RoundResult> {
      agent.alive("before the round");
      const cpu0 = processCpuSeconds(agent.pid);
      const t0 = performance.now();
      writeManifests(agent, pods);
      let seen: number;
      try {
        seen = await waitRunning(agent, pods, signal);
      } catch (err) {
        await removePods(agent, pods, signal).catch(() => {});
        throw err;
      }
      const cpu1 = processCpuSeconds(agent.pid);
      const mem = processMemory(agent.pid);
      if (mem) {
        lastMemory = `${label} RSS with ${pods.names.length} pods running: ${mem.rssMiB.toFixed(1)} MiB (anonymous ${mem.anonMiB.toFixed(1)}, file-backed ${mem.fileMiB.toFixed(1)}; peak ${mem.hwmMiB.toFixed(1)} MiB)`;
      }
      await removePods(agent, pods, signal);
      return { ms: seen - t0, rssMiB: mem?.rssMiB, cpuSeconds: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined };
    },
    /** N pods started, then left alone: RSS once running, CPU over `seconds` of idling, RSS after. */
    async idle(agent: AgentHandle, pods: PodSet, seconds: number, signal: AbortSignal): Promise<IdleResult> {
      agent.alive("before the idle run");
      writeManifests(agent, pods);
      try {
        await waitRunning(agent, pods, signal);
        // The start-up's own tail (status updates, the first relists) is not idling.
        await delay(realClock, 5_000, signal);
        const memStart = processMemory(agent.pid);
        const rssStart = memStart?.rssMiB;
        const cpu0 = processCpuSeconds(agent.pid);
        await delay(realClock, seconds * 1000, signal);
        agent.alive("while idling");
        const cpu1 = processCpuSeconds(agent.pid);
        const memEnd = processMemory(agent.pid);
        const rssEnd = memEnd?.rssMiB;
        if (rssStart === undefined || rssEnd === undefined || cpu0 === undefined || cpu1 === undefined) throw new Error(`${label} (pid ${agent.pid}) vanished while idling`);
        return { pods: pods.names.length, seconds, rssStartMiB: rssStart, rssEndMiB: rssEnd, anonEndMiB: memEnd!.anonMiB, fileEndMiB: memEnd!.fileMiB, cores: (cpu1 - cpu0) / seconds };
      } finally {
        await removePods(agent, pods, signal).catch(() => {});
      }
    },
    notes(): string[] {
      const out: string[] = [];
      if (lastMemory) out.push(lastMemory);
      if (teardownMs.length > 0) out.push(`${label}: manifest deleted → pods stopped, median ${median(teardownMs).toFixed(0)} ms over ${teardownMs.length} round(s)`);
      if (removedSandboxes > 0) out.push(`${label}: ${removedSandboxes} stopped sandbox(es) of deleted pods removed by the benchmark between rounds (its GC runs once a minute)`);
      return out;
    },
  };
}
