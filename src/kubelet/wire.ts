/**
 * The composition root: the only place that knows every implementation. startAgent connects to
 * the runtime (starting the embedded containerd if asked), builds the subsystems, starts the
 * servers and the loops, and returns once the agent runs. Shutdown (the signal, or stop()) stops
 * everything in reverse order and never kills a pod: the pod workers only abandon what they were
 * doing, and the embedded containerd leaves its shims (and so the containers) running.
 */
import { join } from "node:path";
import type { Registry } from "prom-client";
import { podUID, type PodList } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { anySignal, realClock, type Clock, type Logger } from "../lib/index.ts";
import { createMetrics } from "../metrics/index.ts";
import { createPleg, PodCache } from "../pleg/index.ts";
import { createPodConfig } from "../podconfig/index.ts";
import { createPodWorkers, WorkQueue } from "../podworkers/index.ts";
import { createProbeManager } from "../prober/index.ts";
import { createRuntimeManager } from "../runtime/index.ts";
import { syncLoopHealthCheck } from "../server/index.ts";
import { startAgentServers } from "./agent-servers.ts";
import { createStatusManager, generateAPIPodStatus } from "../status/index.ts";
import { connectRuntime } from "./connect-runtime.ts";
import { ContainerDeletor } from "./container-deletor.ts";
import { runContainerGC } from "./container-gc.ts";
import { createPodHandlers } from "./handlers.ts";
import { plegHealthCheck, runtimeHealthCheck } from "./health.ts";
import { createHousekeeping } from "./housekeeping.ts";
import { nodeHostIPs } from "./node-ip.ts";
import { annotateManifestErrors, manifestErrorDetail } from "./manifest-errors.ts";
import { createPodDirs } from "./pod-dirs.ts";
import { PodManager } from "./pod-manager.ts";
import { createPodSyncer } from "./pod-syncer.ts";
import { RuntimeState } from "./runtime-state.ts";
import { SourcesReady } from "./sources-ready.ts";
import { runSyncLoop, SyncLoopMonitor } from "./sync-loop.ts";
import type { PodWorkers } from "./types.ts";

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
  // The composition root is where the real random source is chosen; logic only sees `random`.
  const random = deps.random ?? Math.random;
  const stopper = new AbortController();
  const signal = anySignal(deps.signal, stopper.signal);
  const metrics = createMetrics(deps.registry);

  const connection = await connectRuntime({
    endpoint: deps.criEndpointOverride ?? config.containerRuntimeEndpoint,
    rootDir: config.rootDir,
    network: { podSubnet: config.podCIDR, bridgeName: config.cniBridgeName },
    containerdPath: config.containerdPath,
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    clock,
    log,
    metrics,
    signal,
  });
  const { cri, endpoint } = connection;
  // Reverse-order shutdown steps, registered as each part starts.
  const teardown: { name: string; run: () => Promise<void> }[] = [{ name: "runtime connection", run: connection.close }];
  const shutdown = async () => {
    for (const step of teardown.reverse()) {
      try {
        await step.run();
      } catch (err) {
        log.error("Failed to stop part of the agent; continuing the shutdown", { part: step.name, err });
      }
    }
  };

  try {
    const podsDir = join(config.rootDir, "pods");
    const hostIPs = nodeHostIPs();
    const cache = new PodCache();
    const statusManager = createStatusManager({ clock, log });
    const podManager = new PodManager(() => clock.now());
    // The probe workers read what the pod workers see: the desired pod, the cached runtime status,
    // and the pod IP and phase of the last generated status.
    const probeManager = createProbeManager({
      cri,
      clock,
      random,
      log,
      metrics,
      statusProvider: (uid) => {
        const pod = podManager.get(uid);
        if (!pod || !cache.has(uid)) return undefined;
        const podStatus = cache.get(uid).status;
        const apiStatus = statusManager.getPodStatus(uid);
        return { pod, podStatus, podIP: apiStatus?.podIP ?? podStatus.ips[0] ?? "", phase: apiStatus?.phase };
      },
    });
    teardown.push({ name: "probe workers", run: () => probeManager.stop() });
    const runtime = createRuntimeManager({
      cri,
      clock,
      log,
      metrics,
      random,
      podLogsDir: config.podLogsDir,
      containerLogsDir: config.containerLogsDir,
      podsDir,
      nodeName: config.nodeName,
      hostIPs,
      probeResults: probeManager.results,
    });
    const podDirs = createPodDirs({ podsDir });
    const runtimeState = new RuntimeState(runtime, log);
    const workQueue = new WorkQueue(clock);

    // The workers call the syncer, and the syncer asks the workers whether a pod is terminating:
    // the cycle is closed by binding the question late.
    let podWorkers: PodWorkers | undefined;
    const syncer = createPodSyncer({
      runtime,
      statusManager,
      generateStatus: (pod, podStatus, { podIsTerminal }) =>
        generateAPIPodStatus(pod, podStatus, {
          oldStatus: statusManager.getPodStatus(podUID(pod)),
          podIsTerminal,
          waitingReason: (name: string) => runtime.getContainerWaitingReason(podUID(pod), name),
          hostIPs,
          now: clock.now(),
          probeResult: probeManager.statusLookup(podUID(pod)),
        }),
      podDirs,
      podManager,
      probeManager,
      isTerminationRequested: (uid) => podWorkers?.isPodTerminationRequested(uid) ?? false,
      networkNotReady: () => runtimeState.networkError(),
      clock,
      log,
      metrics,
    });
    const workersCtl = new AbortController();
    const workers = createPodWorkers({
      syncer,
      cache,
      workQueue,
      clock,
      random,
      log,
      metrics,
      resyncIntervalMs: config.syncFrequencyMs,
      signal: workersCtl.signal,
    });
    podWorkers = workers;
    teardown.push({ name: "pod workers", run: () => workers.stop() });

    const pleg = createPleg({
      runtime,
      cri,
      cache,
      clock,
      log,
      metrics,
      eventedEnabled: config.featureGates.EventedPLEG ?? true,
    });
    teardown.push({ name: "PLEG", run: () => pleg.stop() });

    const configCtl = new AbortController();
    const podConfig = createPodConfig({
      staticPodPath: config.staticPodPath,
      staticPodURL: config.staticPodURL,
      staticPodURLHeader: config.staticPodURLHeader,
      nodeName: config.nodeName,
      fileCheckFrequencyMs: config.fileCheckFrequencyMs,
      httpCheckFrequencyMs: config.httpCheckFrequencyMs,
      clock,
      log,
      metrics,
      signal: configCtl.signal,
    });
    teardown.push({ name: "pod config", run: () => podConfig.stop() });

    const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen));
    const deletor = new ContainerDeletor({ cleanUpContainersInPod: (uid, o) => runtime.cleanUpContainersInPod(uid, o), log });
    const handlers = createPodHandlers({
      podManager,
      podWorkers: workers,
      sourcesReady,
      deleteAllContainers: (uid) => deletor.deleteContainersInPod(uid, true),
      clock,
      log,
    });
    const housekeeping = createHousekeeping({ podManager, podWorkers: workers, runtime, statusManager, podDirs, probeManager, clock, log, metrics });
    const monitor = new SyncLoopMonitor();

    await runtimeState.check();
    pleg.start();
    // Adoption: the cache must hold what the runtime already runs before any pod worker reads
    // it, or a restarted bunlet would see an empty pod and create a second sandbox.
    try {
      await pleg.relistNow();
    } catch (err) {
      log.warn("First relist failed; pods are adopted once the runtime answers", { err });
    }

    const podList = () => annotateManifestErrors(podManager.podList((uid) => statusManager.getPodStatus(uid)), podConfig.keptPodErrors());
    const checks = [
      syncLoopHealthCheck({
        clock,
        latestLoopEntryTime: () => (monitor.lastEntry === 0 ? undefined : monitor.lastEntry),
        syncFrequencyMs: config.syncFrequencyMs,
      }),
      plegHealthCheck(pleg),
      runtimeHealthCheck(() => runtimeState.runtimeError()),
    ];
    const servers = startAgentServers({
      readOnly: { address: config.address, port: config.readOnlyPort },
      healthz: { address: config.healthzBindAddress, port: config.healthzPort },
      randomPorts: deps.randomPorts ?? false,
      checks,
      pods: podList,
      registry: metrics.registry,
      probeRegistry: metrics.probeRegistry,
      detail: () => ({
        pleg: pleg.status(),
        runtime: runtimeState.runtimeError() ?? "ready",
        ...manifestErrorDetail(podConfig.lastManifestErrors()),
      }),
      log,
    });
    teardown.push({ name: "HTTP servers", run: () => servers.stop() });

    // The loops: they all end when loopsCtl aborts, which is the first thing shutdown does.
    const loopsCtl = new AbortController();
    const loops = Promise.all([
      runSyncLoop(
        {
          updates: podConfig.updates,
          pleg: pleg.events,
          probeUpdates: probeManager.updates,
          sourcesReady,
          handlers,
          podManager,
          workQueue,
          housekeeping,
          containerDeletor: deletor,
          shouldPodContentBeRemoved: (uid) => workers.shouldPodContentBeRemoved(uid),
          runtimeError: () => runtimeState.runtimeError(),
          monitor,
          clock,
          log,
        },
        loopsCtl.signal,
      ),
      deletor.run(loopsCtl.signal),
      runtimeState.run(clock, loopsCtl.signal),
      runContainerGC(
        {
          garbageCollect: (isPodGone) => runtime.garbageCollect(isPodGone),
          sourcesReady: () => sourcesReady.allReady(),
          isDesired: (uid) => podManager.has(uid),
          shouldPodContentBeRemoved: (uid) => workers.shouldPodContentBeRemoved(uid),
          clock,
          log,
        },
        loopsCtl.signal,
      ),
    ]);
    teardown.push({
      name: "sync loop",
      run: async () => {
        loopsCtl.abort();
        await loops;
      },
    });

    let stopping: Promise<void> | undefined;
    const stopAll = () =>
      (stopping ??= (async () => {
        log.info("Shutting down; pods keep running");
        workersCtl.abort();
        configCtl.abort();
        await shutdown();
        log.info("Shutdown complete");
      })());
    const done = new Promise<void>((resolve) => {
      const onAbort = () => void stopAll().then(resolve);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    log.info("bunlet is running", {
      endpoint,
      nodeName: config.nodeName,
      sources: podConfig.sources.join(",") || "none",
      readOnlyPort: servers.readOnlyPort,
      healthzPort: servers.healthzPort,
      pleg: pleg.mode(),
    });
    return {
      endpoint,
      readOnlyPort: servers.readOnlyPort,
      healthzPort: servers.healthzPort,
      podList,
      done,
      stop: async () => {
        stopper.abort();
        await done;
      },
    };
  } catch (err) {
    await shutdown();
    throw err;
  }
}
