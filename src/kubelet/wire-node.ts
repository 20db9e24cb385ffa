/**
 * The node area: with --kubeconfig, two API clients as the kubelet makes them (one limited to
 * kubeAPIQPS/kubeAPIBurst for registration and the sources to come; a heartbeat client without
 * a limit and with a deadline of min(nodeStatusUpdateFrequency, nodeLeaseDuration) for status and
 * lease), the machine read once, and the node agent: registration, status, lease. Without a
 * kubeconfig bunlet is standalone and this area does nothing. Nothing here can stop a pod.
 */
import { nodeDeclaredFeatures } from "../admission/index.ts";
import { createApiClient, loadKubeconfig, type ApiClient } from "../apiclient/index.ts";
import { VERSION, type BunletConfig } from "../config/index.ts";
import type { CriClient } from "../cri/index.ts";
import { readFileSync } from "node:fs";
import { createStatusInputs, goArch, NodeStartupLatencyTracker, readMachineInfo, startNodeAgent, type NodeAgent } from "../node/index.ts";
import type { Pleg } from "../pleg/index.ts";
import type { RuntimeState } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import { registerCertificateTtl, restClientObserver } from "../metrics/index.ts";

/** The Kubernetes release whose kubelet bunlet follows; reported as kubeletVersion. */
const KUBELET_COMPAT_VERSION = "v1.37.2";

/** The host's boot time from /proc/stat's btime (GetBootTime), undefined when it cannot be read. */
function bootTimeMs(): number | undefined {
  try {
    const btime = /^btime\s+(\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1];
    return btime === undefined ? undefined : Number(btime) * 1000;
  } catch {
    return undefined;
  }
}

export interface NodeParts extends AsyncDisposable {
  /** undefined when standalone. */
  agent?: NodeAgent;
  /** The rate-limited client for API-driven sources; undefined when standalone. */
  client?: ApiClient;
}

export interface NodeWiringInputs {
  /** The node's IPs (InternalIP), chosen once by the wiring for the Node and the pods alike. */
  nodeIPs: string[];
  cri: CriClient;
  runtimeState: RuntimeState;
  pleg: Pick<Pleg, "healthy">;
  /** MemoryPressure, DiskPressure, PIDPressure from the eviction manager (bound late: it is wired after the pods). */
  pressure(): { memory: boolean; disk: boolean; pid: boolean };
  /** "node is shutting down" while graceful node shutdown stops the pods (bound late, like pressure). */
  shutdownStatus(): string | undefined;
  /** The kubelet API's port as served (daemonEndpoints.kubeletEndpoint.Port); 0 when it is off. */
  kubeletPort: number;
  /** What allocatable leaves out of capacity (the container manager's reservation). */
  allocatableReservation?: ReadonlyMap<string, bigint>;
}

export function wireNode(config: BunletConfig, base: WireBase, inputs: NodeWiringInputs): NodeParts {
  const { clock, log, random, signal } = base;
  if (config.kubeconfig === "") {
    log.info("No --kubeconfig: running standalone (no node registration, status or lease)");
    return { [Symbol.asyncDispose]: async () => {} };
  }
  // A bad kubeconfig stops the start, as it stops the kubelet's.
  const apiConfig = loadKubeconfig(config.kubeconfig);
  const userAgent = `bunlet/v${VERSION} (linux/${goArch(process.arch)}) kubelet-compatible/${KUBELET_COMPAT_VERSION}`;
  // Both over HTTP/2 where the server is https, as client-go speaks to the apiserver: what repeats
  // at rest (six Lease renewals a minute, volume refreshes) then costs a few header bytes.
  const http2 = apiConfig.server.startsWith("https://");
  const client = createApiClient(apiConfig, { clock, onRequest: restClientObserver(base.metrics), signal, qps: config.kubeAPIQPS || 5, burst: config.kubeAPIBurst || 10, userAgent, http2 });
  const heartbeatClient = createApiClient(apiConfig, {
    onRequest: restClientObserver(base.metrics),
    clock,
    signal,
    qps: -1,
    timeoutMs: Math.min(config.nodeStatusUpdateFrequencyMs, config.nodeLeaseDurationSeconds * 1000),
    userAgent,
    http2,
  });

  const machine = readMachineInfo(config.rootDir);
  const { nodeIPs } = inputs;
  const cri = inputs.cri;
  const statusInputs = createStatusInputs(
    {
      machine,
      runtime: {
        version: async () => {
          const v = await cri.runtime.version({});
          return { runtimeName: v.runtimeName, runtimeVersion: v.runtimeVersion };
        },
        listImages: async () => (await cri.image.listImages({})).images.map((i) => ({ repoTags: i.repoTags, repoDigests: i.repoDigests, sizeBytes: Number(i.size) })),
      },
      // The kubelet's order: runtime errors (sync, PLEG health, runtime condition), then network.
      notReadyReasons: () => {
        const { runtime, network } = inputs.runtimeState.nodeReadinessErrors();
        const pleg = inputs.pleg.healthy();
        const plegErrors = pleg.ok ? [] : [`PLEG is not healthy: ${pleg.message ?? ""}`];
        const shutdown = inputs.shutdownStatus();
        return [...runtime.slice(0, 1), ...plegErrors, ...runtime.slice(1), ...network, ...(shutdown ? [shutdown] : [])];
      },
      pressure: () => inputs.pressure(),
      now: () => clock.now(),
      log,
    },
    { hostname: config.nodeName, nodeIPs, maxPods: config.maxPods, kubeletPort: inputs.kubeletPort, kubeletVersion: KUBELET_COMPAT_VERSION, allocatableReservation: inputs.allocatableReservation, declaredFeatures: nodeDeclaredFeatures() },
  );

  const stop = new AbortController();
  const clientCert = apiConfig.clientCertificate;
  if (clientCert) {
    registerCertificateTtl(base.metrics.registry, "client", () => (clientCert.kind === "inline" ? clientCert.pem : readFileSync(clientCert.path, "utf8")), () => clock.now());
  }
  const startup = new NodeStartupLatencyTracker({ clock, metrics: base.metrics, bootMs: bootTimeMs() });
  const agent = startNodeAgent(
    { client, heartbeatClient, statusInputs, clock, random, log, startup },
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
  log.info("Joining the cluster", { server: apiConfig.server, node: config.nodeName, kubeconfig: config.kubeconfig, nodeIPs: nodeIPs.join(",") });
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "node status and lease", async () => {
    stop.abort();
    await agent.done;
  });
  return { agent, client, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
