/**
 * The areas built on the runtime, in an order where each is given what it needs: the pod sources,
 * the volumes and the pods; the servers and the kubelet API (which listens before the node
 * registers, since the Node reports its port); node upkeep (eviction, node shutdown), whose
 * conditions the node reports; the node itself, the pod status sync that waits on its heartbeat,
 * and the pod network. Then the loops start: the pods first, then the QoS update and upkeep.
 */
import type { PodList } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { Adopt } from "./teardown.ts";
import type { AreaOptions, RuntimeAreas } from "./wire-areas.ts";
import type { WireBase } from "./wire-base.ts";
import { wireKubeletApi, type KubeletApiParts } from "./wire-kubelet-api.ts";
import { wireNetwork } from "./wire-network.ts";
import { wireNode } from "./wire-node.ts";
import { wirePods, type PodParts } from "./wire-pods.ts";
import { wireServers, type ServerParts } from "./wire-servers.ts";
import { wirePodSources, type SourceParts } from "./wire-sources.ts";
import { wireStatusSync } from "./wire-status.ts";
import { wireUpkeep } from "./wire-upkeep.ts";
import { wireVolumes } from "./wire-volumes.ts";

export interface PodAreas {
  sources: SourceParts;
  servers: ServerParts;
  kubeletApi: KubeletApiParts;
  podList(): PodList;
}

export async function wirePodAreas(config: BunletConfig, base: WireBase, opts: AreaOptions, areas: RuntimeAreas, adopt: Adopt): Promise<PodAreas> {
  const { clients, runtime, recorder, containerManager, podManager, statusManager, hostIPs } = areas;
  const client = clients?.client;
  const sources = adopt("pod sources", wirePodSources(config, base, client, areas.checkpoint));
  const volumes = wireVolumes(config, base, areas.apiObjects, hostIPs, recorder);
  const reservation = containerManager.reservation;
  const pods = adopt("pods", wirePods(config, base, runtime, sources, { podManager, statusManager, hostIPs, recorder, apiClient: client, volumes, allocatableReservation: reservation, cm: containerManager.cm }));
  const podList = () => sources.annotate(pods.podList());
  const { servers, kubeletApi } = await wireServing(config, base, opts, areas, { pods, sources, podList }, adopt);
  const upkeep = adopt("node upkeep", wireUpkeep(config, base, runtime, pods, opts.thresholds, recorder));
  const node = adopt(
    "node",
    wireNode(config, base, clients, {
      nodeIPs: areas.nodeIPs,
      cri: runtime.cri,
      runtimeState: runtime.runtimeState,
      pleg: runtime.pleg,
      kubeletPort: kubeletApi.port,
      pressure: () => upkeep.pressure(),
      shutdownStatus: () => upkeep.shutdownStatus(),
      allocatableReservation: reservation,
    }),
  );
  adopt("pod status sync", wireStatusSync(base, client, { statusManager, podManager, mirrorPodOf: pods.mirrorPodOf, heartbeat: node.agent?.heartbeat }));
  const embedded = (opts.criEndpointOverride ?? config.containerRuntimeEndpoint) === "";
  adopt("pod network", wireNetwork(config, base, { client, cri: runtime.cri, embedded }));
  pods.start();
  containerManager.start(() => pods.activePods());
  upkeep.start();
  return { sources, servers, kubeletApi, podList };
}

/** The read-only and healthz ports, then the kubelet API, which serves the same table and more. */
async function wireServing(
  config: BunletConfig,
  base: WireBase,
  opts: AreaOptions,
  areas: RuntimeAreas,
  parts: { pods: PodParts; sources: SourceParts; podList: () => PodList },
  adopt: Adopt,
): Promise<{ servers: ServerParts; kubeletApi: KubeletApiParts }> {
  const { runtime } = areas;
  const servers = adopt(
    "servers",
    await wireServers(config, base, {
      randomPorts: opts.randomPorts,
      checks: [...parts.pods.checks, ...runtime.checks],
      pods: parts.podList,
      detail: () => ({ ...runtime.detail(), ...parts.sources.detail() }),
      stats: runtime.stats,
      cri: runtime.cri,
    }),
  );
  const routes = { ...servers.routes, ...servers.apiRoutes };
  const kubeletApi = adopt("kubelet API", await wireKubeletApi(config, base, { cri: runtime.cri, hostIPs: areas.hostIPs, randomPort: opts.randomPorts, routes, pods: parts.podList }));
  return { servers, kubeletApi };
}
