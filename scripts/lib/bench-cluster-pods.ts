/**
 * Pods of a cluster benchmark, through the apiserver: created at once with spec.nodeName set to
 * one node (as the scheduler would bind them), timed until the apiserver reports every one Running
 * with its container ready, and deleted (gracefully, as a user would) until the apiserver no
 * longer has them. Used by bench-cluster.ts and bench-targets.ts.
 */
import type { ApiClient } from "../../src/apiclient/index.ts";
import { isNotFound } from "../../src/apiclient/index.ts";
import { delay, realClock } from "../../src/lib/index.ts";
import { BUSYBOX_IMAGE, COMMAND, CONTAINER_NAME, GRACE_SECONDS } from "./bench-common.ts";

/** The node a set of pods goes to, and the namespace they are created in. */
export interface ClusterNode {
  name: string;
  namespace: string;
}

export interface ClusterPods {
  api: ApiClient;
  signal: AbortSignal;
  timeoutMs: number;
}

interface PodItem {
  metadata: { name: string };
  status?: { phase?: string; containerStatuses?: { ready?: boolean }[] };
}

const POLL_MS = 100;

function podObject(node: ClusterNode, name: string, round: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: node.namespace, labels: { app: "bench-cluster", round } },
    spec: {
      nodeName: node.name,
      terminationGracePeriodSeconds: GRACE_SECONDS,
      automountServiceAccountToken: false,
      tolerations: [{ operator: "Exists" }],
      containers: [{ name: CONTAINER_NAME, image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: COMMAND }],
    },
  };
}

async function pollApi(ctx: Pick<ClusterPods, "signal">, what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  for (;;) {
    ctx.signal.throwIfAborted();
    if (await check()) return performance.now();
    if (performance.now() > deadline) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}`);
    await delay(realClock, POLL_MS, ctx.signal);
  }
}

const podsPath = (node: ClusterNode) => `/api/v1/namespaces/${node.namespace}/pods`;
const runningAndReady = (p: PodItem) => p.status?.phase === "Running" && (p.status.containerStatuses ?? []).length > 0 && p.status.containerStatuses!.every((c) => c.ready);
const podNames = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-p${i}`);

/** Creates n pods at once; resolves with the ms until the apiserver shows all Running and Ready. The pods stay. */
export async function startClusterPods(ctx: ClusterPods, node: ClusterNode, n: number, tag: string): Promise<number> {
  const { api, timeoutMs } = ctx;
  const t0 = performance.now();
  await Promise.all(podNames(n, tag).map((name) => api.create(podsPath(node), podObject(node, name, tag))));
  const seen = await pollApi(
    ctx,
    `${n} pods Running and Ready on ${node.name}`,
    async () => (await api.list<PodItem>(podsPath(node), { labelSelector: `round=${tag}` })).items.filter(runningAndReady).length === n,
    timeoutMs,
  );
  return seen - t0;
}

/** Deletes the pods of a round and waits until the apiserver no longer has them. */
export async function removeClusterPods(ctx: ClusterPods, node: ClusterNode, n: number, tag: string): Promise<void> {
  const { api, timeoutMs } = ctx;
  await Promise.all(
    podNames(n, tag).map((name) =>
      api.delete(`${podsPath(node)}/${name}`).catch((err) => {
        if (!isNotFound(err)) throw err;
      }),
    ),
  );
  await pollApi(ctx, `the pods of ${tag} gone from ${node.name}`, async () => (await api.list(podsPath(node), { labelSelector: `round=${tag}` })).items.length === 0, timeoutMs);
}

/** Creates, times and deletes a round's pods. */
export async function clusterRound(ctx: ClusterPods, node: ClusterNode, n: number, tag: string): Promise<number> {
  try {
    return await startClusterPods(ctx, node, n, tag);
  } finally {
    await removeClusterPods(ctx, node, n, tag);
  }
}

export async function createNamespace(ctx: ClusterPods, name: string): Promise<void> {
  await ctx.api.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  // Pods are admitted only once the namespace's default ServiceAccount exists.
  await pollApi(ctx, `the default ServiceAccount of ${name}`, async () => ctx.api.get(`/api/v1/namespaces/${name}/serviceaccounts/default`).then(() => true, () => false), 120_000);
}

/** Until the Node reports Ready. */
export async function waitNodeReady(ctx: ClusterPods, name: string): Promise<void> {
  await pollApi(
    ctx,
    `node ${name} Ready`,
    async () => {
      const n = await ctx.api.get<{ status?: { conditions?: { type: string; status: string }[] } }>(`/api/v1/nodes/${name}`).catch(() => undefined);
      return n?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
    },
    180_000,
  );
}
