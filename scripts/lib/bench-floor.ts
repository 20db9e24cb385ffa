/**
 * The raw CRI floor: the same sandboxes and containers bunlet would create, sent straight to a
 * throwaway containerd (test/harness) with bunlet's concurrency: every pod in parallel, one pod's
 * steps in order (RunPodSandbox, CreateContainer, StartContainer). No image checks, no status
 * bookkeeping: what is left is containerd, runc and CNI, i.e. the least any agent can take.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { createCriClient, labels, NamespaceMode, type CriClient } from "../../src/cri/index.ts";
import { ContainerConfigSchema, PodSandboxConfigSchema } from "../../src/cri/testing.ts";
import { anySignal } from "../../src/lib/index.ts";
import type { TestContainerd } from "../../test/harness/containerd.ts";
import {
  BUSYBOX_IMAGE,
  COMMAND,
  CONTAINER_NAME,
  countRunning,
  GRACE_SECONDS,
  pollUntil,
  type BenchSystem,
  type PodSet,
} from "./bench-common.ts";

/** nameserver/search/options of the host, as the kubelet passes them for dnsPolicy Default. */
function hostDns(): { servers: string[]; searches: string[]; options: string[] } {
  const dns = { servers: [] as string[], searches: [] as string[], options: [] as string[] };
  let text = "";
  try {
    text = readFileSync("/etc/resolv.conf", "utf8");
  } catch {
    return dns;
  }
  for (const line of text.split("\n")) {
    const [key, ...rest] = line.trim().split(/\s+/);
    if (key === "nameserver" && rest[0]) dns.servers.push(rest[0]);
    if (key === "search") dns.searches.push(...rest);
    if (key === "options") dns.options.push(...rest);
  }
  return dns;
}

const namespaceOptions = { network: NamespaceMode.POD, pid: NamespaceMode.CONTAINER, ipc: NamespaceMode.POD };

/** One pod as the kubelet starts it: sandbox, then its one container, created then started. */
async function startPod(cri: CriClient, dirs: { logs: string; pods: string }, namespace: string, name: string, signal: AbortSignal): Promise<void> {
  const uid = randomUUID();
  const podLabels = {
    [labels.KubernetesPodNameLabel]: name,
    [labels.KubernetesPodNamespaceLabel]: namespace,
    [labels.KubernetesPodUIDLabel]: uid,
    app: "bench-startup",
  };
  const logDirectory = join(dirs.logs, `${namespace}_${name}_${uid}`);
  mkdirSync(join(logDirectory, CONTAINER_NAME), { recursive: true, mode: 0o755 });
  // The kubelet-managed /etc/hosts and the termination-message file are bind mounts it prepares.
  const podDir = join(dirs.pods, uid);
  mkdirSync(podDir, { recursive: true });
  writeFileSync(join(podDir, "etc-hosts"), `127.0.0.1\tlocalhost\n::1\tlocalhost\n`);
  writeFileSync(join(podDir, "termination-log"), "");
  const sandboxConfig = create(PodSandboxConfigSchema, {
    metadata: { name, namespace, uid, attempt: 0 },
    hostname: name,
    logDirectory,
    dnsConfig: hostDns(),
    labels: podLabels,
    annotations: { "kubernetes.io/config.source": "file" },
    linux: { cgroupParent: "", securityContext: { namespaceOptions } },
  });
  const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig }, { signal });
  const containerConfig = create(ContainerConfigSchema, {
    metadata: { name: CONTAINER_NAME, attempt: 0 },
    image: { image: BUSYBOX_IMAGE, userSpecifiedImage: BUSYBOX_IMAGE },
    command: COMMAND,
    logPath: `${CONTAINER_NAME}/0.log`,
    mounts: [
      { containerPath: "/etc/hosts", hostPath: join(podDir, "etc-hosts") },
      { containerPath: "/dev/termination-log", hostPath: join(podDir, "termination-log") },
    ],
    labels: { ...podLabels, [labels.KubernetesContainerNameLabel]: CONTAINER_NAME, [labels.KubernetesContainerTypeLabel]: labels.ContainerTypeRegular },
    annotations: {
      [labels.ContainerRestartCountLabel]: "0",
      [labels.ContainerTerminationMessagePathLabel]: "/dev/termination-log",
      [labels.PodTerminationGracePeriodLabel]: String(GRACE_SECONDS),
    },
    linux: {
      resources: { cpuShares: 2n, cpuPeriod: 100_000n, oomScoreAdj: 1000n },
      securityContext: { namespaceOptions },
    },
  });
  const { containerId } = await cri.runtime.createContainer({ podSandboxId, config: containerConfig, sandboxConfig }, { signal });
  await cri.runtime.startContainer({ containerId }, { signal });
}

export interface FloorOptions {
  /** Starts the throwaway containerd (test/harness/containerd.ts startTestContainerd). */
  start: () => Promise<TestContainerd>;
  timeoutMs: number;
}

export function createFloorSystem(opts: FloorOptions): BenchSystem {
  let ctd: TestContainerd | undefined;
  let cri: CriClient | undefined;
  let dirs: { logs: string; pods: string } | undefined;

  async function removePods(namespace: string): Promise<void> {
    const { items } = await cri!.runtime.listPodSandbox({ filter: { labelSelector: { [labels.KubernetesPodNamespaceLabel]: namespace } } });
    const remove = async (id: string) => {
      await cri!.runtime.stopPodSandbox({ podSandboxId: id });
      await cri!.runtime.removePodSandbox({ podSandboxId: id });
    };
    // One retry: on a loaded machine containerd's own wait for the container's exit can time out.
    await Promise.all(items.map((s) => remove(s.id).catch(() => remove(s.id))));
  }

  return {
    label: "CRI floor",
    async setup(signal) {
      ctd = await opts.start();
      signal.throwIfAborted();
      cri = createCriClient({ endpoint: ctd.endpoint });
      dirs = { logs: join(ctd.rootDir, "pod-logs"), pods: join(ctd.rootDir, "pods") };
    },
    async round(pods: PodSet, signal) {
      const failed = new AbortController();
      const both = anySignal(signal, failed.signal);
      const t0 = performance.now();
      const observed = pollUntil(
        `${pods.names.length} RUNNING containers in ${pods.namespace} (CRI floor)`,
        async () => (await countRunning(cri!, pods.namespace, both)) === pods.names.length,
        opts.timeoutMs,
        both,
      );
      observed.catch(() => {}); // awaited below; this only keeps an early rejection from being unhandled
      try {
        await Promise.all(pods.names.map((name) => startPod(cri!, dirs!, pods.namespace, name, both)));
        return { ms: (await observed) - t0 };
      } catch (err) {
        failed.abort(err);
        await observed.catch(() => {});
        throw err;
      } finally {
        await removePods(pods.namespace);
      }
    },
    async teardown() {
      cri?.close();
      cri = undefined;
      await ctd?.stop();
      ctd = undefined;
    },
  };
}
