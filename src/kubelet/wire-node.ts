/**
 * The node area: with the node's API clients (wire-api-client.ts), the machine read once and the
 * node agent: registration, status, lease. Without a kubeconfig bunlet is standalone and this
 * area does nothing. Nothing here can stop a pod.
 */
import { nodeDeclaredFeatures } from "../admission/index.ts";
import { KUBELET_COMPAT_VERSION, type BunletConfig } from "../config/index.ts";
import type { CriClient } from "../cri/index.ts";
import { createStatusInputs, NodeStartupLatencyTracker, notReadyReasons, readBootTimeMs, readMachineInfo, startNodeAgent, type NodeAgent } from "../node/index.ts";
import type { Pleg } from "../pleg/index.ts";
import type { RuntimeState } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { ApiClients } from "./wire-api-client.ts";
import type { WireBase } from "./wire-base.ts";

export interface NodeParts extends AsyncDisposable {
  /** undefined when standalone. */
  agent?: NodeAgent;
}

export interface NodeWiringInputs {
  /** The node's IPs (InternalIP), chosen once by the wiring for the Node and the pods alike. */
  nodeIPs: string[];
  cri: CriClient;
  runtimeState: RuntimeState;
  pleg: Pick<Pleg, "healthy">;
  /** MemoryPressure, DiskPressure, PIDPressure from the eviction manager. */
  pressure(): { memory: boolean; disk: boolean; pid: boolean };
  /** "node is shutting down" while graceful node shutdown stops the pods. */
  shutdownStatus(): string | undefined;
  /** The kubelet API's port as served (daemonEndpoints.kubeletEndpoint.Port); 0 when it is off. */
  kubeletPort: number;
  /** What allocatable leaves out of capacity (the container manager's reservation). */
  allocatableReservation?: ReadonlyMap<string, bigint>;
}

/** What node status reads: the machine, the runtime's version and images, readiness and pressure. */
function nodeStatusInputs(config: BunletConfig, base: WireBase, inputs: NodeWiringInputs) {
  const { cri } = inputs;
  return createStatusInputs(
    {
      machine: readMachineInfo(config.rootDir),
      runtime: {
        version: async () => {
          const v = await cri.runtime.version({});
          return { runtimeName: v.runtimeName, runtimeVersion: v.runtimeVersion };
        },
        listImages: async () => (await cri.image.listImages({})).images.map((i) => ({ repoTags: i.repoTags, repoDigests: i.repoDigests, sizeBytes: Number(i.size) })),
      },
      notReadyReasons: () => notReadyReasons({ ...inputs.runtimeState.nodeReadinessErrors(), pleg: inputs.pleg.healthy(), shutdown: inputs.shutdownStatus() }),
      pressure: () => inputs.pressure(),
      now: () => base.clock.now(),
      log: base.log,
    },
    {
      hostname: config.nodeName,
      nodeIPs: inputs.nodeIPs,
      maxPods: config.maxPods,
      kubeletPort: inputs.kubeletPort,
      kubeletVersion: KUBELET_COMPAT_VERSION,
      allocatableReservation: inputs.allocatableReservation,
      declaredFeatures: nodeDeclaredFeatures(),
    },
  );
}

export function wireNode(config: BunletConfig, base: WireBase, clients: ApiClients | undefined, inputs: NodeWiringInputs): NodeParts {
  const { clock, log, random, signal } = base;
  if (!clients) {
    log.info("No --kubeconfig: running standalone (no node registration, status or lease)");
    return { [Symbol.asyncDispose]: async () => {} };
  }
  const stop = new AbortController();
  const startup = new NodeStartupLatencyTracker({ clock, metrics: base.metrics, bootMs: readBootTimeMs() });
  const agent = startNodeAgent(
    { client: clients.client, heartbeatClient: clients.heartbeatClient, statusInputs: nodeStatusInputs(config, base, inputs), clock, random, log, startup },
    {
      nodeName: config.nodeName,
      hostname: config.nodeName,
      nodeLabels: config.nodeLabels,
      registerWithTaints: config.registerWithTaints,
      registerNode: config.registerNode,
      nodeStatusUpdateFrequencyMs: config.nodeStatusUpdateFrequencyMs,
      nodeStatusReportFrequencyMs: config.nodeStatusReportFrequencyMs,
      nodeLeaseDurationSeconds: config.nodeLeaseDurationSeconds,
    },
    AbortSignal.any([signal, stop.signal]),
  );
  log.info("Joining the cluster", { server: clients.apiConfig.server, node: config.nodeName, kubeconfig: config.kubeconfig, nodeIPs: inputs.nodeIPs.join(",") });
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "node status and lease", async () => {
    stop.abort();
    await agent.done;
  });
  return { agent, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
