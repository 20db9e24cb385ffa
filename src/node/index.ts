/**
 * The node: registration, node status and the node lease, and the pure setters they share.
 * startNodeAgent runs the status loop and the lease controller until the signal aborts; neither
 * ever touches a pod, so an apiserver that is away only delays what the cluster sees.
 */
import type { Node, Taint } from "kubernetes-types/core/v1";
import type { Clock, Logger } from "../lib/index.ts";
import { createReflector, ObjectStore, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import { createLeaseController, type LeaseController } from "./lease.ts";
import { createNodeStatusLoop, type NodeStatusLoop } from "./status-loop.ts";
import type { NodeStatusInputs } from "./setters.ts";
import type { NodeStartupLatencyTracker } from "./startup-latency.ts";

export { readMachineInfo, goArch } from "./machine.ts";
export { chooseNodeIPs } from "./addresses.ts";
export { createStatusInputs } from "./inputs.ts";
export { capacityAndAllocatable } from "./setters.ts";
export { NodeStartupLatencyTracker } from "./startup-latency.ts";

/** The kubelet's node settings (flags and KubeletConfiguration fields of the same meaning). */
interface NodeAgentOptions {
  nodeName: string;
  hostname: string;
  nodeLabels: Record<string, string>;
  registerWithTaints: Taint[];
  registerNode: boolean;
  nodeStatusUpdateFrequencyMs: number;
  nodeStatusReportFrequencyMs: number;
  nodeLeaseDurationSeconds: number;
}

interface NodeAgentDeps {
  /** Rate-limited (kubeAPIQPS / kubeAPIBurst): registration. */
  client: ApiClient;
  /** Not rate-limited, short timeout: node status and lease (the kubelet's heartbeat client). */
  heartbeatClient: ApiClient;
  statusInputs(): Promise<NodeStatusInputs>;
  clock: Clock;
  random: () => number;
  log: Logger;
  /** kubelet_node_startup_*: made when the agent starts (its start is bunlet's). */
  startup?: NodeStartupLatencyTracker;
}

export interface NodeAgent {
  readonly status: NodeStatusLoop;
  readonly lease: LeaseController;
  /** Resolves when both loops stopped (after the signal aborted). */
  done: Promise<void>;
}

export function startNodeAgent(deps: NodeAgentDeps, opts: NodeAgentOptions, signal: AbortSignal): NodeAgent {
  const log = deps.log.with({ node: opts.nodeName });
  // The kubelet's node informer: a watch of this one Node (nothing flows at rest but bookmarks).
  const nodes = new ObjectStore<Node & KubeObject>();
  const nodeWatch = createReflector<Node & KubeObject>({
    client: deps.client,
    path: "/api/v1/nodes",
    fieldSelector: `metadata.name=${opts.nodeName}`,
    store: nodes,
    clock: deps.clock,
    random: deps.random,
    log,
    name: "*v1.Node",
  });
  const status = createNodeStatusLoop(
    { client: deps.client, heartbeatClient: deps.heartbeatClient, statusInputs: deps.statusInputs, cachedNode: () => nodes.list()[0], clock: deps.clock, random: deps.random, log, startup: deps.startup },
    {
      nodeName: opts.nodeName,
      hostname: opts.hostname,
      nodeLabels: opts.nodeLabels,
      registerWithTaints: opts.registerWithTaints,
      registerNode: opts.registerNode,
      updateFrequencyMs: opts.nodeStatusUpdateFrequencyMs,
      reportFrequencyMs: opts.nodeStatusReportFrequencyMs,
    },
  );
  const lease = createLeaseController(
    { client: deps.heartbeatClient, clock: deps.clock, random: deps.random, log },
    { nodeName: opts.nodeName, leaseDurationSeconds: opts.nodeLeaseDurationSeconds },
  );
  const done = Promise.all([status.run(signal), lease.run(signal), nodeWatch.run(signal)]).then(() => undefined);
  return { status, lease, done };
}
