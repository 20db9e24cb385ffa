/**
 * The agent's two HTTP servers: the read-only port (/healthz with the syncloop, pleg and runtime
 * checks, /pods, /metrics, /metrics/probes) and the healthz port, which serves the same /healthz (the kubelet's
 * 10248 only pings; bunlet's names the failing check there too, so a node's health can be probed
 * without exposing /pods). The agent owns the returned handle and stops it on shutdown.
 */
import type { Registry } from "prom-client";
import type { PodList } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import { startServer, type HealthCheck, type ServerHandle } from "../server/index.ts";

export interface AgentServersOptions {
  readOnly: { address: string; port: number };
  healthz: { address: string; port: number };
  /** Ephemeral ports instead of the configured non-zero ones (tests). */
  randomPorts: boolean;
  checks: HealthCheck[];
  pods: () => PodList;
  registry: Registry;
  /** The prober_probe_* metrics, for /metrics/probes. */
  probeRegistry: Registry;
  detail: () => Record<string, unknown>;
  log: Logger;
}

export interface AgentServers {
  readonly readOnlyPort: number;
  readonly healthzPort: number;
  stop(): Promise<void>;
}

export function startAgentServers(opts: AgentServersOptions): AgentServers {
  const { log } = opts;
  const readOnly = startServer({
    ...opts.readOnly,
    randomPort: opts.randomPorts && opts.readOnly.port !== 0,
    checks: opts.checks,
    pods: opts.pods,
    metrics: opts.registry,
    probeMetrics: opts.probeRegistry,
    detail: opts.detail,
    log,
  });
  let healthz: ServerHandle;
  try {
    healthz = startServer({
      ...opts.healthz,
      randomPort: opts.randomPorts && opts.healthz.port !== 0,
      healthzOnly: true,
      checks: opts.checks,
      detail: opts.detail,
      log,
    });
  } catch (err) {
    void readOnly.stop();
    throw err;
  }
  return {
    readOnlyPort: readOnly.port,
    healthzPort: healthz.port,
    stop: async () => void (await Promise.all([readOnly.stop(), healthz.stop()])),
  };
}
