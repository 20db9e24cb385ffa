/**
 * The servers area of the wiring: the read-only port (/healthz with every area's checks, /pods,
 * /metrics, /metrics/probes, /stats/summary, /spec/, /metrics/resource and /metrics/cadvisor from the stats provider) and the healthz port, which serves the same /healthz (the kubelet's
 * 10248 only pings; bunlet's names the failing check there too, so a node's health can be probed
 * without exposing /pods). The agent stops both on shutdown.
 */
import type { PodList } from "../api/index.ts";
import { kubeletConfigz, type BunletConfig } from "../config/index.ts";
import type { CriClient } from "../cri/index.ts";
import { apiRoutes, healthzRoutes, listen, pathBuckets, readOnlyRoutes, requestObserver, statsRoutes, type HealthCheck, type ListenOptions, type Routes } from "../server/index.ts";
import { registerLogMetrics } from "../metrics/index.ts";
import { PROMETHEUS_TEXT, resourceMetrics, statsJson, type StatsProvider } from "../stats/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";

export interface ServerParts extends AsyncDisposable {
  /** 0 when the server is off. */
  readonly readOnlyPort: number;
  readonly healthzPort: number;
  /** The read-only port's table (/healthz, /pods, /metrics, /metrics/probes, /stats/summary, /spec/), also served on the kubelet API port. */
  readonly routes: Routes;
  /** What only the kubelet API port adds: /configz, /runningpods/, /logs/. */
  readonly apiRoutes: Routes;
}

export interface ServerOptions {
  /** Ephemeral ports instead of the configured non-zero ones (tests). */
  randomPorts: boolean;
  checks: HealthCheck[];
  pods: () => PodList;
  detail: () => Record<string, unknown>;
  stats: StatsProvider;
  cri: Pick<CriClient, "runtime">;
}

/** /stats/summary, /spec/, /metrics/resource and /metrics/cadvisor, served on the read-only and kubelet API ports. */
function statsRoutesOf(base: WireBase, stats: StatsProvider): Routes {
  const { log, signal } = base;
  return statsRoutes({
    summary: async (query) => statsJson(await stats.summary({ ...query, signal })),
    spec: async () => statsJson(await stats.machineInfo()),
    resourceMetrics: async () => {
      const summary = await stats.summary({ onlyCpuAndMemory: true, signal }).catch((err: unknown) => {
        log.error("Error getting summary for resourceMetric prometheus endpoint", { err });
        return err instanceof Error ? err : new Error(String(err));
      });
      return resourceMetrics(summary);
    },
    cadvisorMetrics: () => stats.cadvisorMetrics(signal),
    metricsContentType: PROMETHEUS_TEXT,
  });
}

/** kubelet_container_log_filesystem_used_bytes, from the summary's container log usage. */
function registerPodLogMetrics(base: WireBase, stats: StatsProvider): void {
  const { log, metrics, signal } = base;
  registerLogMetrics(
    metrics.registry,
    async () =>
      (await stats.summary({ signal })).pods.flatMap((p) =>
        p.containers.flatMap((c) =>
          c.logs?.usedBytes === undefined ? [] : [{ uid: p.podRef.uid, namespace: p.podRef.namespace, pod: p.podRef.name, container: c.name, usedBytes: c.logs.usedBytes }],
        ),
      ),
    (err) => log.error("Failed to get pod stats", { err }),
  );
}

export async function wireServers(config: BunletConfig, base: WireBase, opts: ServerOptions): Promise<ServerParts> {
  const { log, metrics } = base;
  const stack = new AsyncDisposableStack();
  const health = healthzRoutes({ checks: opts.checks, detail: opts.detail, log });
  // Shared with the kubelet API port.
  const stats = statsRoutesOf(base, opts.stats);
  registerPodLogMetrics(base, opts.stats);
  const serve = async (options: ListenOptions, routes: Routes) => {
    const handle = await listen(options, routes);
    deferLogged(stack, log, `${options.name} server`, () => handle.stop());
    return handle;
  };
  try {
    const routes = { ...health, ...readOnlyRoutes({ pods: opts.pods, metrics: metrics.registry, probeMetrics: metrics.probeRegistry }), ...stats };
    const readOnly = await serve(
      {
        name: "read-only",
        address: config.address,
        port: config.readOnlyPort,
        randomPort: opts.randomPorts && config.readOnlyPort !== 0,
        clock: base.clock,
        log,
        observe: requestObserver(metrics, "readonly", pathBuckets(Object.keys(routes)), base.clock),
      },
      routes,
    );
    const healthz = await serve(
      { name: "healthz", address: config.healthzBindAddress, port: config.healthzPort, randomPort: opts.randomPorts && config.healthzPort !== 0, clock: base.clock, log },
      health,
    );
    return {
      readOnlyPort: readOnly.port,
      healthzPort: healthz.port,
      routes,
      apiRoutes: apiRoutes({
        configz: () => kubeletConfigz(config),
        cri: opts.cri,
        logs: config.enableSystemLogHandler && { query: config.enableSystemLogQuery },
      }),
      [Symbol.asyncDispose]: () => stack.disposeAsync(),
    };
  } catch (err) {
    await stack.disposeAsync();
    throw err;
  }
}
