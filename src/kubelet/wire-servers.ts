/**
 * The servers area of the wiring: the read-only port (/healthz with every area's checks, /pods,
 * /metrics, /metrics/probes) and the healthz port, which serves the same /healthz (the kubelet's
 * 10248 only pings; bunlet's names the failing check there too, so a node's health can be probed
 * without exposing /pods). The agent stops both on shutdown.
 */
import type { PodList } from "../api/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { startServer, type HealthCheck, type ServerHandle } from "../server/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-runtime.ts";

export interface ServerParts extends AsyncDisposable {
  /** 0 when the server is off. */
  readonly readOnlyPort: number;
  readonly healthzPort: number;
}

export interface ServerOptions {
  /** Ephemeral ports instead of the configured non-zero ones (tests). */
  randomPorts: boolean;
  checks: HealthCheck[];
  pods: () => PodList;
  detail: () => Record<string, unknown>;
}

export function wireServers(config: BunletConfig, base: WireBase, opts: ServerOptions): ServerParts {
  const { log, metrics } = base;
  const stack = new AsyncDisposableStack();
  const serve = (name: string, start: () => ServerHandle) => {
    const handle = start();
    deferLogged(stack, log, name, () => handle.stop());
    return handle;
  };
  try {
    const readOnly = serve("read-only server", () =>
      startServer({
        address: config.address,
        port: config.readOnlyPort,
        randomPort: opts.randomPorts && config.readOnlyPort !== 0,
        checks: opts.checks,
        pods: opts.pods,
        metrics: metrics.registry,
        probeMetrics: metrics.probeRegistry,
        detail: opts.detail,
        log,
      }),
    );
    const healthz = serve("healthz server", () =>
      startServer({
        address: config.healthzBindAddress,
        port: config.healthzPort,
        randomPort: opts.randomPorts && config.healthzPort !== 0,
        healthzOnly: true,
        checks: opts.checks,
        detail: opts.detail,
        log,
      }),
    );
    return {
      readOnlyPort: readOnly.port,
      healthzPort: healthz.port,
      [Symbol.asyncDispose]: () => stack.disposeAsync(),
    };
  } catch (err) {
    void stack.disposeAsync();
    throw err;
  }
}
