/**
 * bunlet's HTTP servers: route tables (the read-only port's /healthz, /pods, /metrics,
 * /metrics/probes; the healthz port's /healthz) and listen(), which serves a table on an address
 * and port, over TLS when given a certificate. The kubelet's wiring starts one listener per port
 * and stops them on shutdown.
 */
export { listen, ServerError, type ListenOptions, type ServerHandle } from "./serve.ts";
export { createHandler, healthzRoutes, readOnlyRoutes, type RouteHandler, type Routes } from "./handler.ts";
export { healthz, healthzOne, pingCheck, type HealthCheck, type HealthzQuery, type HealthzResponse } from "./healthz.ts";
export { syncLoopHealthCheck, syncLoopThresholdMs } from "./checks.ts";
