/**
 * bunlet's HTTP servers: route tables (the read-only port's /healthz, /pods, /metrics,
 * /metrics/probes; /stats/summary, shared with the kubelet API port; the healthz port's /healthz)
 * and listen(), which serves a table on an address and port, over TLS when given a certificate. The kubelet's wiring starts one listener per port
 * and stops them on shutdown. The kubelet API (listenKubeletApi) serves the same table over
 * HTTPS behind authentication and authorization, with container logs, exec, attach,
 * port-forward and run.
 */
export { listen, type ListenOptions } from "./serve.ts";
export { healthzRoutes, readOnlyRoutes, type Routes } from "./handler.ts";
export { statsRoutes } from "./stats.ts";
export type { HealthCheck } from "./healthz.ts";
export { syncLoopHealthCheck } from "./checks.ts";
export { kubeletApiPaths, listenKubeletApi } from "./kubelet-api.ts";
export { pathBuckets, requestObserver } from "./request-metrics.ts";
export { apiRoutes } from "./api-routes.ts";
export { createAuthenticator, type ReviewClient } from "./authn.ts";
export { alwaysAllow, createWebhookAuthorizer } from "./authz.ts";
export { loadServingCert } from "./serving-cert.ts";
