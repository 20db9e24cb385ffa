/**
 * The runtime area of the wiring: the connection to the container runtime (the embedded
 * containerd when no endpoint is given), the runtime manager, the probe workers whose liveness
 * and startup results it consults, the runtime health check, the PLEG with its pod cache, and the
 * stats provider over the same CRI client.
 * It returns once the runtime answered, its status was read once, and the first relist filled the
 * cache with what the runtime already runs (adoption: a pod worker reading an empty cache would
 * create a second sandbox).
 */
import { join } from "node:path";
import type { Pod } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import type { CriClient } from "../cri/index.ts";
import type { EventRecorder } from "../events/index.ts";
import { createPleg, describePlegStatus, PodCache, type Pleg } from "../pleg/index.ts";
import { createProbeManager, statusProviderFrom, type ProbeManager, type StatusSources } from "../prober/index.ts";
import { createRuntimeManager, readRuntimeStatus, type EnvObjects, type PodCgroupResizer, type RuntimeManager } from "../runtime/index.ts";
import type { PodResourcesStore } from "../checkpoint/index.ts";
import type { HealthCheck } from "../server/index.ts";
import { createStatsProvider, type CgroupSource, type StatsProvider } from "../stats/index.ts";
import { actuatedStore } from "../podsync/index.ts";
import { connectRuntime } from "../boot/index.ts";
import { plegHealthCheck, runtimeHealthCheck } from "../podsync/index.ts";
import { RuntimeState } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import { embeddedNetwork } from "./wire-network.ts";
import { wireUserNamespaces } from "./wire-userns.ts";
import type { UserNamespaceManager } from "../userns/index.ts";

export interface RuntimeParts extends AsyncDisposable {
  readonly endpoint: string;
  cri: CriClient;
  runtime: RuntimeManager;
  /** The actuated resources checkpoint (`<root-dir>/actuated_pods_state`). */
  actuated: PodResourcesStore;
  runtimeState: RuntimeState;
  cache: PodCache;
  pleg: Pleg;
  probeManager: ProbeManager;
  /** hostUsers: false pods' ID ranges (released by the pod syncer and housekeeping). */
  userns: UserNamespaceManager;
  /** /stats/summary's numbers, from this runtime's CRI stats and the host. */
  stats: StatsProvider;
  /** The /healthz checks of this area: pleg and runtime. */
  checks: HealthCheck[];
  /** /healthz?verbose lines of this area. */
  detail(): Record<string, unknown>;
}

export interface RuntimeOptions {
  /** Use this CRI endpoint whatever the config says (tests). */
  criEndpointOverride?: string;
  /** The node's IPs, for the downward API. */
  hostIPs: string[];
  /** ConfigMaps, Secrets and Services for container env (the API objects area); undefined when standalone. */
  envObjects?: EnvObjects;
  /** The desired pods and their API status, which the probe workers read beside the pod cache. */
  statusSources: Omit<StatusSources, "cache">;
  /** The kubelet's event recorder (container, image, sandbox and probe events). */
  recorder: EventRecorder;
  /** The pods' RuntimeClass handlers; undefined when standalone (the runtime's default). */
  runtimeHandler?: (pod: Pod) => string;
  /** The pod's cgroup from the container manager (RunPodSandbox's cgroup_parent). */
  podCgroupParent?: (pod: Pod) => string;
  /** The container manager's cgroups, for /stats/summary (pod CPU and memory, system containers). */
  statsCgroups?: CgroupSource;
  /** The pod cgroup an in-place resize changes (the container manager); undefined without pod cgroups. */
  podCgroupResizer?: PodCgroupResizer;
}

/** The connection to the runtime (the embedded containerd when no endpoint is given), closed at teardown. */
async function wireRuntimeConnection(config: BunletConfig, base: WireBase, criEndpointOverride: string | undefined, stack: AsyncDisposableStack) {
  const { clock, log, metrics, signal } = base;
  const connection = await connectRuntime({
    endpoint: criEndpointOverride ?? config.containerRuntimeEndpoint,
    rootDir: config.rootDir,
    network: embeddedNetwork(config),
    containerdPath: config.containerdPath,
    systemdCgroup: config.cgroupDriver === "systemd",
    sandboxImage: config.podInfraContainerImage,
    containerdLog: { level: config.containerdLogLevel, maxSize: config.containerdLogMaxSize, maxFiles: config.containerdLogMaxFiles },
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    clock,
    log,
    metrics,
    signal,
  });
  deferLogged(stack, log, "runtime connection", connection.close);
  return connection;
}

/** The probe workers and the runtime manager, which consults their liveness and startup results. */
function wireRuntimeManager(config: BunletConfig, base: WireBase, cri: CriClient, cache: PodCache, opts: RuntimeOptions, userns: UserNamespaceManager, stack: AsyncDisposableStack) {
  const { clock, log, metrics, random } = base;
  const statusProvider = statusProviderFrom({ ...opts.statusSources, cache });
  const probeManager = createProbeManager({ cri, clock, random, log, metrics, statusProvider, recorder: opts.recorder });
  deferLogged(stack, log, "probe workers", () => probeManager.stop());
  // What each running container was given (in-place resize), kept across restarts as the kubelet keeps actuated_pods_state.
  const actuated = actuatedStore(config.rootDir, log);
  const runtime = createRuntimeManager({
    actuated,
    cri,
    clock,
    log,
    metrics,
    random,
    podLogsDir: config.podLogsDir,
    containerLogsDir: config.containerLogsDir,
    resolvConf: config.resolvConf,
    podsDir: join(config.rootDir, "pods"),
    nodeName: config.nodeName,
    hostIPs: opts.hostIPs,
    probeResults: probeManager.results,
    clusterDns: { servers: config.clusterDNS, domain: config.clusterDomain },
    envObjects: opts.envObjects,
    recorder: opts.recorder,
    runtimeHandler: opts.runtimeHandler,
    podCgroupParent: opts.podCgroupParent,
    podCgroup: opts.podCgroupResizer,
    startupLatency: base.startupLatency,
    userNamespace: (pod, handler) => userns.getOrCreateUserNamespaceMappings(pod, handler),
  });
  return { probeManager, actuated: actuated.store, runtime };
}

/** Runtime readiness and handlers: checked once now, then polled until teardown. */
async function wireRuntimeState(base: WireBase, runtimeState: RuntimeState, stack: AsyncDisposableStack): Promise<void> {
  const { clock, log, signal } = base;
  await runtimeState.check(signal);
  const polling = new AbortController();
  const statePolling = runtimeState.run(clock, AbortSignal.any([signal, polling.signal]));
  deferLogged(stack, log, "runtime status checks", async () => {
    polling.abort();
    await statePolling;
  });
}

export async function wireRuntime(config: BunletConfig, base: WireBase, opts: RuntimeOptions): Promise<RuntimeParts> {
  const { clock, log, metrics } = base;
  await using stack = new AsyncDisposableStack();
  const { cri, endpoint } = await wireRuntimeConnection(config, base, opts.criEndpointOverride, stack);
  const cache = new PodCache();
  // The runtime's handlers, which the user namespace manager checks, come from its Status answers.
  const runtimeState = new RuntimeState({ runtimeStatus: (o) => readRuntimeStatus(cri, o) }, log, () => clock.now());
  const userns = await wireUserNamespaces(config, base, () => runtimeState.runtimeHandlers());
  const { probeManager, actuated, runtime } = wireRuntimeManager(config, base, cri, cache, opts, userns, stack);
  const pleg = createPleg({ runtime, cri, cache, clock, log, metrics, eventedEnabled: config.featureGates.EventedPLEG ?? true });
  deferLogged(stack, log, "PLEG", () => pleg.stop());
  await wireRuntimeState(base, runtimeState, stack);
  pleg.start();
  try {
    await pleg.relistNow();
  } catch (err) {
    log.warn("First relist failed; pods are adopted once the runtime answers", { err });
  }
  const owned = stack.move();
  return {
    endpoint,
    cri,
    runtime,
    actuated,
    runtimeState,
    cache,
    pleg,
    probeManager,
    userns,
    stats: createStatsProvider({ cri, clock, nodeName: config.nodeName, rootDir: config.rootDir, podLogsDir: config.podLogsDir, cgroups: opts.statsCgroups }),
    checks: [plegHealthCheck(pleg), runtimeHealthCheck(() => runtimeState.runtimeError())],
    detail: () => ({ pleg: describePlegStatus(pleg.status(), clock.now()), runtime: runtimeState.runtimeError() ?? "ready" }),
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}
