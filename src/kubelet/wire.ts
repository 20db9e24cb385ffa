/**
 * The composition root: the only place that knows every implementation. startAgent wires the
 * agent area by area (runtime, pod sources, pods, servers), each wiring function returning its
 * parts and their teardown, then starts the loops and returns once the agent runs. Shutdown (the
 * signal, or stop()) tears the areas down in reverse order and never kills a pod: the pod workers
 * only abandon what they were doing, and the embedded containerd leaves its shims (and so the
 * containers) running.
 */
import { mkdirSync, readFileSync } from "node:fs";
import type { Registry } from "prom-client";
import type { PodList } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { anySignal, realClock, type Clock, type Logger } from "../lib/index.ts";
import { createMetrics } from "../metrics/index.ts";
import { PodStartupLatencyTracker } from "../status/index.ts";
import { setNodeMetrics } from "./wire-metrics.ts";
import { chooseNodeIPs, readMachineInfo } from "../node/index.ts";
import { createStatusManager } from "../status/index.ts";
import { PodManager } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import { wireCheckpoint } from "./wire-checkpoint.ts";
import { podCgroupResizer } from "../podsync/index.ts";
import { checkCgroupDriver, wireContainerManager } from "./wire-cm.ts";
import { wireKubeletApi } from "./wire-kubelet-api.ts";
import { wireEvents } from "./wire-events.ts";
import { wireRuntimeClass } from "./wire-runtimeclass.ts";
import { wireNetwork } from "./wire-network.ts";
import { wireNode } from "./wire-node.ts";
import { wirePods } from "./wire-pods.ts";
import { wireRuntime } from "./wire-runtime.ts";
import { wireServers } from "./wire-servers.ts";
import { wireApiObjects } from "./wire-api-objects.ts";
import { wireVolumes } from "./wire-volumes.ts";
import { wirePodSources } from "./wire-sources.ts";
import { wireStatusSync } from "./wire-status.ts";
import { evictionThresholds, wireUpkeep, type UpkeepParts } from "./wire-upkeep.ts";

export interface AgentDeps {
  log: Logger;
  clock?: Clock;
  random?: () => number;
  /** Aborting it shuts the agent down (SIGTERM/SIGINT in main.ts). */
  signal: AbortSignal;
  registry?: Registry;
  /** Use this CRI endpoint whatever the config says (tests). */
  criEndpointOverride?: string;
  /** Listen on ephemeral ports instead of the configured non-zero ones (tests). */
  randomPorts?: boolean;
}

export interface Agent {
  readonly endpoint: string;
  /** 0 when the read-only server is off. */
  readonly readOnlyPort: number;
  readonly healthzPort: number;
  podList(): PodList;
  /** Resolves after shutdown completed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startAgent(config: BunletConfig, deps: AgentDeps): Promise<Agent> {
  const log = deps.log;
  const clock = deps.clock ?? realClock;
  // Checked before anything starts, as the kubelet parses them at start.
  const thresholds = evictionThresholds(config);
  checkCgroupDriver(config);
  const stopper = new AbortController();
  // The composition root is where the real random source is chosen; logic only sees `random`.
  const metrics = createMetrics(deps.registry);
  const base = {
    clock,
    log,
    metrics,
    random: deps.random ?? Math.random,
    signal: anySignal(deps.signal, stopper.signal),
    startupLatency: new PodStartupLatencyTracker({ clock, log: log.with({ component: "pod_startup_latency_tracker" }), metrics }),
  };
  const { signal } = base;
  setNodeMetrics(base.metrics, config.nodeName);
  // The root dir first, as the kubelet's setupDataDirs: the machine's filesystem capacity (node
  // status, admission) is read from it before any pod directory exists.
  mkdirSync(config.rootDir, { recursive: true, mode: 0o750 });

  // Until the agent runs, this stack owns what was started: a failed start tears it down.
  await using parts = new AsyncDisposableStack();
  const adopt = <T extends AsyncDisposable>(name: string, part: T): T => {
    deferLogged(parts, log, name, () => part[Symbol.asyncDispose]());
    return part;
  };
  // The desired pods and their API status: read by the probe workers, written by the pods area.
  const podManager = new PodManager(() => clock.now());
  const statusManager = createStatusManager({ clock, log });
  // The node's IPs, chosen once: the Node's InternalIPs and every pod's hostIP/hostIPs.
  const nodeIPs = chooseNodeIPs(config.nodeIPs, readProcNetRoute());
  if (nodeIPs.length === 0) log.warn("No --node-ip and no usable address on this host: pods report hostIP 127.0.0.1 and a joined Node gets no InternalIP");
  const hostIPs = nodeIPs.length > 0 ? nodeIPs : ["127.0.0.1"];

  // kubepods and its QoS tiers exist before any pod starts, as the kubelet's container manager.
  const containerManager = adopt("container manager", wireContainerManager(config, base, { machine: readMachineInfo(config.rootDir), thresholds }));
  const { cm } = containerManager;
  const { recorder } = adopt("events", wireEvents(config, base));
  const { runtimeHandler } = adopt("runtime classes", wireRuntimeClass(config, base));
  // The node's record of its desired state: pods and objects to start from while the apiserver
  // is unreachable (--offline-start).
  const checkpoint = wireCheckpoint(config, base);
  // ConfigMaps, Secrets, Services and tokens for pods: handed to the runtime now, bound to the
  // node area's API client once it exists.
  const apiObjects = adopt("API objects", wireApiObjects(config, base, checkpoint));
  const runtime = adopt(
    "runtime",
    await wireRuntime(config, base, {
      criEndpointOverride: deps.criEndpointOverride,
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
  // The kubelet API listens before the node registers (the Node reports its port); its routes and
  // pods are bound once the pods area exists, and until then it serves nothing.
  const kubeletApi = adopt("kubelet API", await wireKubeletApi(config, base, { cri: runtime.cri, hostIPs, randomPort: deps.randomPorts ?? false }));
  let upkeep: UpkeepParts | undefined;
  const pressure = () => upkeep?.pressure() ?? { memory: false, disk: false, pid: false };
  const shutdownStatus = () => upkeep?.shutdownStatus();
  const node = adopt(
    "node",
    wireNode(config, base, { nodeIPs, cri: runtime.cri, runtimeState: runtime.runtimeState, pleg: runtime.pleg, kubeletPort: kubeletApi.port, pressure, shutdownStatus, allocatableReservation: containerManager.reservation }),
  );
  apiObjects.bind(node.client);
  const embedded = (deps.criEndpointOverride ?? config.containerRuntimeEndpoint) === "";
  adopt("pod network", wireNetwork(config, base, { client: node.client, cri: runtime.cri, embedded }));
  const sources = adopt("pod sources", wirePodSources(config, base, node.client, checkpoint));
  const volumes = wireVolumes(config, base, apiObjects, hostIPs, recorder);
  const pods = adopt("pods", wirePods(config, base, runtime, sources, {
      podManager,
      statusManager,
      hostIPs,
      recorder,
      apiClient: node.client,
      volumes,
      allocatableReservation: containerManager.reservation,
      podCgroups: cm.cgroupsPerQOS
        ? {
            exists: (pod) => cm.podCgroupExists(pod),
            ensure: (pod) => cm.ensurePodCgroup(pod, pods.activePods()),
            destroy: (pod) => cm.destroyPodCgroup(pod),
            cleanupOrphaned: (keep) => cm.cleanupOrphanedPodCgroups(keep),
          }
        : undefined,
    }),
  );
  adopt("pod status sync", wireStatusSync(base, node.client, { statusManager, podManager, mirrorPodOf: pods.mirrorPodOf, heartbeat: node.agent?.heartbeat }));
  const podList = () => sources.annotate(pods.podList());
  const servers = adopt(
    "servers",
    await wireServers(config, base, {
      randomPorts: deps.randomPorts ?? false,
      checks: [...pods.checks, ...runtime.checks],
      pods: podList,
      detail: () => ({ ...runtime.detail(), ...sources.detail() }),
      stats: runtime.stats,
      cri: runtime.cri,
    }),
  );
  kubeletApi.bind({ routes: { ...servers.routes, ...servers.apiRoutes }, pods: podList });
  pods.start();
  containerManager.start(() => pods.activePods());
  upkeep = adopt("node upkeep", wireUpkeep(config, base, runtime, pods, thresholds, recorder));
  upkeep.start();

  const owned = parts.move();
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
      log.info("Shutting down; pods keep running", { reason });
      await owned.disposeAsync();
      log.info("Shutdown complete");
    })());
  const done = new Promise<void>((resolve) => {
    const onAbort = () => void stopAll().then(resolve);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  log.info("bunlet is running", {
    endpoint: runtime.endpoint,
    nodeName: config.nodeName,
    sources: sources.podConfig.sources,
    readOnlyPort: servers.readOnlyPort,
    healthzPort: servers.healthzPort,
    kubeletPort: kubeletApi.port,
    pleg: runtime.pleg.mode(),
  });
  return {
    endpoint: runtime.endpoint,
    readOnlyPort: servers.readOnlyPort,
    healthzPort: servers.healthzPort,
    podList,
    done,
    stop: async () => {
      stopper.abort();
      await done;
    },
  };
}

/** The IPv4 routing table, for the default route's interface; empty when /proc is not readable. */
function readProcNetRoute(): string {
  try {
    return readFileSync("/proc/net/route", "utf8");
  } catch {
    return "";
  }
}
