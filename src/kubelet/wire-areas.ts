/**
 * The order of the areas, one wiring function per area, each given what it needs when it is
 * built: nothing is bound later. First what runs the node's containers (the API clients, the
 * container manager, events, RuntimeClasses, the checkpoint, the API objects pods read, the
 * runtime); then the pods and what serves and keeps them (wire-pod-areas.ts).
 */
import type { BunletConfig } from "../config/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import type { EventRecorder } from "../events/index.ts";
import type { Threshold } from "../eviction/index.ts";
import type { Logger } from "../lib/index.ts";
import { chooseNodeIPs, podHostIPs, readMachineInfo, readProcNetRoute } from "../node/index.ts";
import { podCgroupResizer, PodManager } from "../podsync/index.ts";
import { createStatusManager, type StatusManager } from "../status/index.ts";
import type { Adopt } from "./teardown.ts";
import { wireApiClients, type ApiClients } from "./wire-api-client.ts";
import { wireApiObjects, type ApiObjectParts } from "./wire-api-objects.ts";
import type { WireBase } from "./wire-base.ts";
import { wireCheckpoint } from "./wire-checkpoint.ts";
import { wireContainerManager, type ContainerManagerParts } from "./wire-cm.ts";
import { wireEvents } from "./wire-events.ts";
import { wireRuntime, type RuntimeParts } from "./wire-runtime.ts";
import { wireRuntimeClass } from "./wire-runtimeclass.ts";

export interface AreaOptions {
  /** Use this CRI endpoint whatever the config says (tests). */
  criEndpointOverride?: string;
  /** Listen on ephemeral ports instead of the configured non-zero ones (tests). */
  randomPorts: boolean;
  /** The eviction thresholds, parsed before anything started. */
  thresholds: Threshold[];
}

/** What the runtime areas hand to the pod areas. */
export interface RuntimeAreas {
  clients?: ApiClients;
  checkpoint?: Checkpoint;
  /** The desired pods and their API status: read by the probe workers, written by the pods area. */
  podManager: PodManager;
  statusManager: StatusManager;
  nodeIPs: string[];
  /** The pods' hostIPs: the node's IPs, or loopback when it has none. */
  hostIPs: string[];
  containerManager: ContainerManagerParts;
  recorder: EventRecorder;
  apiObjects: ApiObjectParts;
  runtime: RuntimeParts;
}

export async function wireRuntimeAreas(config: BunletConfig, base: WireBase, opts: AreaOptions, adopt: Adopt): Promise<RuntimeAreas> {
  const { clock, log } = base;
  const clients = wireApiClients(config, base);
  const podManager = new PodManager(() => clock.now());
  const statusManager = createStatusManager({ clock, log });
  const { nodeIPs, hostIPs } = nodeAddresses(config, log);
  // kubepods and its QoS tiers exist before any pod starts, as the kubelet's container manager.
  const containerManager = adopt("container manager", wireContainerManager(config, base, { machine: readMachineInfo(config.rootDir), thresholds: opts.thresholds }));
  const { cm } = containerManager;
  const { recorder } = adopt("events", wireEvents(config, base));
  const { runtimeHandler } = adopt("runtime classes", wireRuntimeClass(config, base));
  // The node's record of its desired state, to start from while the apiserver is unreachable (--offline-start).
  const checkpoint = wireCheckpoint(config, base);
  // ConfigMaps, Secrets, Services, tokens, trust bundles and pod certificates for pods' env and volumes.
  const apiObjects = adopt("API objects", wireApiObjects(base, clients?.client, { nodeName: config.nodeName, recorder, checkpoint }));
  const runtime = adopt(
    "runtime",
    await wireRuntime(config, base, {
      criEndpointOverride: opts.criEndpointOverride,
      hostIPs,
      statusSources: { pods: podManager, statuses: statusManager },
      recorder,
      runtimeHandler,
      envObjects: apiObjects.env,
      podCgroupParent: (pod) => cm.podCgroupParent(pod),
      statsCgroups: containerManager.statsSource,
      podCgroupResizer: cm.cgroupsPerQOS ? podCgroupResizer(cm) : undefined,
    }),
  );
  return { clients, checkpoint, podManager, statusManager, nodeIPs, hostIPs, containerManager, recorder, apiObjects, runtime };
}

/** The node's IPs, chosen once: the Node's InternalIPs and every pod's hostIP/hostIPs. */
function nodeAddresses(config: BunletConfig, log: Logger): { nodeIPs: string[]; hostIPs: string[] } {
  const nodeIPs = chooseNodeIPs(config.nodeIPs, readProcNetRoute());
  if (nodeIPs.length === 0) log.warn("No --node-ip and no usable address on this host: pods report hostIP 127.0.0.1 and a joined Node gets no InternalIP");
  return { nodeIPs, hostIPs: podHostIPs(nodeIPs) };
}
