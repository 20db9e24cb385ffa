/**
 * Views over the runtime: every pod the runtime holds (GetPods), and the full status of one pod
 * (GetPodStatus). Objects that disappear between a list and a status call are skipped, as the
 * kubelet does: a concurrent removal is normal, not an error.
 */
import { ContainerState, isNotFound, labels as L, PodSandboxState, type CriClient } from "../cri/index.ts";
import {
  containerRef,
  sandboxRef,
  toContainerStatus,
  toSandboxStatus,
  containerInfoFromLabels,
  type RuntimePodStatus,
  type RuntimeContainerStatus,
  type RuntimePod,
  type RuntimeSandboxStatus,
} from "../container/index.ts";
import { terminationMessage } from "./termination-message.ts";

interface Opts {
  signal: AbortSignal;
}

/** The runtime manager's read-only half: what the PLEG lists and inspects (its PodLister). */
export interface RuntimeViews {
  getPods(opts: Opts & { all?: boolean }): Promise<RuntimePod[]>;
  /** One pod's sandboxes and containers, exited ones included; undefined when it has none (GetPod). */
  getPod(uid: string, opts: Opts): Promise<RuntimePod | undefined>;
  getPodStatus(uid: string, name: string, namespace: string, opts: Opts): Promise<RuntimePodStatus>;
}

/** The views over one CRI client, without the rest of the manager (PLEG tests and bench use it). */
export function runtimeViews(cri: CriClient): RuntimeViews {
  return {
    getPods: (opts) => getPods(cri, opts),
    getPod: async (uid, opts) => (await getPods(cri, { ...opts, podUid: uid }))[0],
    getPodStatus: (uid, name, namespace, opts) => getPodStatus(cri, uid, name, namespace, opts),
  };
}

/**
 * The runtime's pods. `all` (the default) lists every sandbox and container, as the PLEG needs;
 * `all: false` only ready sandboxes and running containers (the kubelet's GetPods(false)), which is
 * what housekeeping kills as orphans: dead leftovers are the container GC's business. `podUid`
 * lists that one pod's, by its label (the kubelet's GetPod).
 */
async function getPods(cri: CriClient, opts: Opts & { all?: boolean; podUid?: string }): Promise<RuntimePod[]> {
  const all = opts.all ?? true;
  const call = { signal: opts.signal };
  // No filter at all for the full listing, as the kubelet sends it.
  const byPod = opts.podUid === undefined ? {} : { labelSelector: { [L.KubernetesPodUIDLabel]: opts.podUid } };
  const request = <T>(state: T) => {
    const filter = all ? byPod : { ...byPod, state: { state } };
    return Object.keys(filter).length === 0 ? {} : { filter };
  };
  const [{ items }, { containers }] = await Promise.all([
    cri.runtime.listPodSandbox(request(PodSandboxState.SANDBOX_READY), call),
    cri.runtime.listContainers(request(ContainerState.CONTAINER_RUNNING), call),
  ]);
  const pods = new Map<string, RuntimePod & { createdAt: number }>();
  const podFor = (uid: string, name: string, namespace: string) => {
    let p = pods.get(uid);
    if (!p) pods.set(uid, (p = { uid, name, namespace, sandboxes: [], containers: [], createdAt: 0 }));
    return p;
  };
  for (const s of items) {
    if (!s.metadata) continue;
    const p = podFor(s.metadata.uid, s.metadata.name, s.metadata.namespace);
    const ref = sandboxRef(s);
    p.sandboxes.push(ref);
    p.createdAt = Math.max(p.createdAt, ref.createdAt);
  }
  for (const c of containers) {
    const info = containerInfoFromLabels(c.labels);
    if (!c.metadata || !info.podUid) continue;
    podFor(info.podUid, info.podName, info.podNamespace).containers.push(containerRef(c));
  }
  return [...pods.values()]
    .sort((a, b) => b.createdAt - a.createdAt)
    .map(({ createdAt: _createdAt, ...pod }) => pod);
}

/** Every sandbox (newest first) and container (newest first) of one pod. */
export async function getPodStatus(cri: CriClient, uid: string, name: string, namespace: string, opts: Opts): Promise<RuntimePodStatus> {
  const selector = { labelSelector: { [L.KubernetesPodUIDLabel]: uid } };
  const { items } = await cri.runtime.listPodSandbox({ filter: selector }, opts);
  items.sort((a, b) => byNewest(a.createdAt, b.createdAt));
  const sandboxStatuses: RuntimeSandboxStatus[] = [];
  let ips: string[] = [];
  for (const [idx, sandbox] of items.entries()) {
    const status = await orNotFound(cri.runtime.podSandboxStatus({ podSandboxId: sandbox.id }, opts));
    if (!status?.status) continue;
    const converted = toSandboxStatus(status.status);
    sandboxStatuses.push(converted);
    // Only the newest sandbox's IPs count, and only while it is ready.
    if (idx === 0 && status.status.state === PodSandboxState.SANDBOX_READY) ips = converted.ips;
  }

  const { containers } = await cri.runtime.listContainers({ filter: selector }, opts);
  const collected: { createdNs: bigint; status: RuntimeContainerStatus }[] = [];
  for (const c of containers) {
    const res = await orNotFound(cri.runtime.containerStatus({ containerId: c.id }, opts));
    if (!res?.status) continue;
    const converted = toContainerStatus(res.status, c.podSandboxId);
    if (converted.state === "exited") {
      const extra = terminationMessage(res.status, converted.exitCode, converted.reason);
      if (extra) converted.message = converted.message ? `${converted.message}: ${extra}` : extra;
    }
    collected.push({ createdNs: res.status.createdAt, status: converted });
  }
  // Sort on nanoseconds: a container restarted within the same millisecond must still sort first.
  collected.sort((a, b) => byNewest(a.createdNs, b.createdNs));
  const containerStatuses = collected.map((c) => c.status);
  return { uid, name, namespace, ips, sandboxStatuses, containerStatuses };
}

function byNewest(a: bigint, b: bigint): number {
  return b > a ? 1 : b < a ? -1 : 0;
}

async function orNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
