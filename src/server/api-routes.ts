/**
 * The routes only the kubelet API port serves (the kubelet's InstallAuthRequiredHandlers and
 * InstallSystemLogHandler, never the read-only port): /configz, the running configuration;
 * /runningpods/, the pods the runtime runs (GetRunningPods: ready sandboxes and running
 * containers, as the kubelet's Pods.ToAPIPod writes them: name, namespace, UID, and each
 * container's name and image); and /logs/ (node-logs.ts), unless enableSystemLogHandler is off.
 */
import type { Pod, PodList } from "../api/index.ts";
import { ContainerState, PodSandboxState, type Container, type CriClient, type PodSandbox } from "../cri/index.ts";
import type { Routes } from "./handler.ts";
import { nodeLogsHandler, type NodeLogsOptions } from "./node-logs.ts";
import { textResponse } from "./respond.ts";

export interface ApiRoutesOptions {
  /** The /configz document ({"kubeletconfig": …}). */
  configz: () => object;
  cri: Pick<CriClient, "runtime">;
  /** enableSystemLogHandler; off answers the kubelet's "logs endpoint is disabled." */
  logs: false | NodeLogsOptions;
}

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

/** The runtime's pods as the kubelet's ToAPIPod: one per sandbox's pod UID, with its running containers. */
export function runningPodList(sandboxes: readonly PodSandbox[], containers: readonly Container[]): PodList {
  const pods = new Map<string, Pod & { spec: { containers: { name: string; image: string; resources: object }[] } }>();
  const bySandbox = new Map<string, string>();
  for (const s of sandboxes) {
    if (s.state !== PodSandboxState.SANDBOX_READY || !s.metadata) continue;
    const uid = s.metadata.uid;
    bySandbox.set(s.id, uid);
    if (!pods.has(uid)) {
      pods.set(uid, {
        metadata: { name: s.metadata.name, namespace: s.metadata.namespace, uid, creationTimestamp: null },
        spec: { containers: [] },
        status: {},
      } as unknown as Pod & { spec: { containers: { name: string; image: string; resources: object }[] } });
    }
  }
  for (const c of containers) {
    const uid = bySandbox.get(c.podSandboxId);
    if (c.state !== ContainerState.CONTAINER_RUNNING || !uid) continue;
    pods.get(uid)!.spec.containers.push({ name: c.metadata?.name ?? "", image: c.image?.image ?? "", resources: {} });
  }
  return { kind: "PodList", apiVersion: "v1", metadata: {}, items: [...pods.values()] } as PodList;
}

export function apiRoutes(opts: ApiRoutesOptions): Routes {
  const runningPods = async () => {
    const [sandboxes, containers] = await Promise.all([opts.cri.runtime.listPodSandbox({}), opts.cri.runtime.listContainers({})]);
    return json(runningPodList(sandboxes.items, containers.containers));
  };
  const logs = opts.logs ? nodeLogsHandler(opts.logs) : () => textResponse(405, "logs endpoint is disabled.\n");
  return {
    "/configz": () => json(opts.configz()),
    "/runningpods/": runningPods,
    "/runningpods": runningPods,
    "/logs/": logs,
    "/logs/*": logs,
  };
}
