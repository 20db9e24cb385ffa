/**
 * The node: registration, node status and the node lease, and the pure setters they share.
 * startNodeAgent runs the status loop and the lease controller until the signal aborts; neither
 * ever touches a pod, so an apiserver that is away only delays what the cluster sees.
 */
import type { Node, Taint } from "kubernetes-types/core/v1";
import type { Clock, Logger } from "../lib/index.ts";
import { createReflector, ObjectStore, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import { createHeartbeat, type Heartbeat } from "./heartbeat.ts";
import { createLeaseController, type LeaseController } from "./lease.ts";
import { createNodeStatusLoop, type NodeStatusLoop } from "./status-loop.ts";
import type { NodeStatusInputs } from "./setters.ts";
import type { NodeStartupLatencyTracker } from "./startup-latency.ts";

export { readMachineInfo, readBootTimeMs, goArch, type MachineInfo } from "./machine.ts";
export { nodeLabels } from "./labels.ts";
export { chooseNodeIPs, podHostIPs, readProcNetRoute } from "./addresses.ts";
export { createStatusInputs } from "./inputs.ts";
export { notReadyReasons } from "./ready-reasons.ts";
export { capacityAndAllocatable } from "./setters.ts";
export { heartbeatTimeoutMs, type Heartbeat } from "./heartbeat.ts";
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
  /** Whether the apiserver answers the heartbeats; pod status updates wait on it after an outage. */
  readonly heartbeat: Heartbeat;
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
  const heartbeat = createHeartbeat((from, to) => {
    if (to === "silent" && from === "answering") log.error("The apiserver does not answer the node's heartbeats; pod status updates wait until the Lease and the node status are through again");
    if (to === "answering") log.info("The apiserver answers again: Lease renewed and node status reported; pod status updates resume");
  });
  // After an outage the Node's status follows the first renewal at once (read from the
  // apiserver, reported whether it changed or not), before any pod status goes.
  const reporting: Promise<void>[] = [];
  const onRenewal = (err?: unknown) => {
    if (heartbeat.renewed(err)) reporting.push(status.reportNow(signal).then((e) => heartbeat.reported(e)));
  };
  const lease = createLeaseController(
    { client: deps.heartbeatClient, clock: deps.clock, random: deps.random, log, onRenewal },
    { nodeName: opts.nodeName, leaseDurationSeconds: opts.nodeLeaseDurationSeconds },
  );
  const done = Promise.all([status.run(signal), lease.run(signal), nodeWatch.run(signal)])
    .then(() => Promise.all(reporting))
    .then(() => undefined);
  return { status, lease, heartbeat, done };
}
