/**
 * The composition root: the only place that knows every implementation. startAgent makes the
 * base every area receives, wires the areas in order (wire-areas.ts, wire-pod-areas.ts), each
 * wiring function returning its parts and their teardown, and returns once the agent runs.
 * Shutdown (the signal, or stop()) tears the areas down in reverse order and never kills a pod:
 * the pod workers only abandon what they were doing, and the embedded containerd leaves its
 * shims (and so the containers) running.
 */
import type { Registry } from "prom-client";
import type { PodList } from "../api/index.ts";
import { checkCgroupDriver, evictionThresholds, setupRootDir } from "../boot/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { anySignal, realClock, type Clock, type Logger } from "../lib/index.ts";
import { createMetrics, setNodeMetrics } from "../metrics/index.ts";
import { PodStartupLatencyTracker } from "../status/index.ts";
import { adopter } from "./teardown.ts";
import { wireRuntimeAreas } from "./wire-areas.ts";
import type { WireBase } from "./wire-base.ts";
import { wirePodAreas } from "./wire-pod-areas.ts";

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
  // Checked before anything starts, as the kubelet parses them at start.
  const thresholds = evictionThresholds(config);
  checkCgroupDriver(config);
  const stopper = new AbortController();
  const base = wireBase(config, deps, stopper.signal);
  const { log } = base;
  setupRootDir(config.rootDir);

  // Until the agent runs, this stack owns what was started: a failed start tears it down.
  await using parts = new AsyncDisposableStack();
  const adopt = adopter(parts, log);
  const opts = { criEndpointOverride: deps.criEndpointOverride, randomPorts: deps.randomPorts ?? false, thresholds };
  const areas = await wireRuntimeAreas(config, base, opts, adopt);
  const { sources, servers, kubeletApi, podList } = await wirePodAreas(config, base, opts, areas, adopt);
  const done = shutdownOnAbort(base, parts.move());
  const { runtime } = areas;
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

/** What every area receives; the composition root is where the real random source is chosen. */
function wireBase(config: BunletConfig, deps: AgentDeps, stop: AbortSignal): WireBase {
  const log = deps.log;
  const clock = deps.clock ?? realClock;
  const metrics = createMetrics(deps.registry);
  setNodeMetrics(metrics, config.nodeName);
  return {
    clock,
    log,
    metrics,
    random: deps.random ?? Math.random,
    signal: anySignal(deps.signal, stop),
    startupLatency: new PodStartupLatencyTracker({ clock, log: log.with({ component: "pod_startup_latency_tracker" }), metrics }),
  };
}

/** Disposes the agent's parts once its signal aborts (exactly once: the listener fires once); resolves when done. */
function shutdownOnAbort({ signal, log }: WireBase, owned: AsyncDisposableStack): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = async () => {
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
      log.info("Shutting down; pods keep running", { reason });
      await owned.disposeAsync();
      log.info("Shutdown complete");
      resolve();
    };
    if (signal.aborted) void onAbort();
    else signal.addEventListener("abort", () => void onAbort(), { once: true });
  });
}
