/**
 * bunlet's HTTP servers: route tables (the read-only port's /healthz, /pods, /metrics,
 * /metrics/probes; the healthz port's /healthz) and listen(), which serves a table on an address
 * and port, over TLS when given a certificate. The kubelet's wiring starts one listener per port
 * and stops them on shutdown.
 */
export { listen, type ListenOptions } from "./serve.ts";
export { healthzRoutes, readOnlyRoutes, type Routes } from "./handler.ts";
export type { HealthCheck } from "./healthz.ts";
export { syncLoopHealthCheck } from "./checks.ts";
