/**
 * bunlet's HTTP endpoints: the kubelet's read-only port (/healthz, /pods, /metrics,
 * /metrics/probes) and the healthz port (/healthz only). wire.ts starts one server per port and
 * stops both on shutdown.
 */
export { startServer, ServerError, type ServerOptions, type ServerHandle } from "./serve.ts";
export { createHandler, type HandlerOptions } from "./handler.ts";
export { healthz, healthzOne, pingCheck, type HealthCheck, type HealthzQuery, type HealthzResponse } from "./healthz.ts";
export { syncLoopHealthCheck, syncLoopThresholdMs } from "./checks.ts";
