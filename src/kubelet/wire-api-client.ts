/**
 * The node's API clients, made first when bunlet joins a cluster (--kubeconfig), so every area
 * that talks to the apiserver is given its client when it is built. Two clients as the kubelet
 * makes them: one limited to kubeAPIQPS/kubeAPIBurst for registration, the pod sources, API
 * objects, mirror pods and the pod status sync; and a heartbeat client without a limit and with a
 * deadline of min(nodeStatusUpdateFrequency, nodeLeaseDuration) for node status and the lease.
 * Without a kubeconfig bunlet is standalone and there are none. A bad kubeconfig stops the start,
 * as it stops the kubelet's.
 */
import { createApiClient, loadKubeconfig, restClientLimits, type ApiClient, type ApiClientConfig } from "../apiclient/index.ts";
import { nodeUserAgent, type BunletConfig } from "../config/index.ts";
import { readFileSync } from "node:fs";
import { registerCertificateTtl, restClientObserver } from "../metrics/index.ts";
import { goArch, heartbeatTimeoutMs } from "../node/index.ts";
import type { WireBase } from "./wire-base.ts";

export interface ApiClients {
  /** The kubeconfig's server and credentials. */
  apiConfig: ApiClientConfig;
  /** The rate-limited client. */
  client: ApiClient;
  /** Node status and lease: no rate limit, a deadline per request. */
  heartbeatClient: ApiClient;
}

export function wireApiClients(config: BunletConfig, base: WireBase): ApiClients | undefined {
  const { clock, signal } = base;
  if (config.kubeconfig === "") return undefined;
  const apiConfig = loadKubeconfig(config.kubeconfig);
  const userAgent = nodeUserAgent(goArch(process.arch));
  // Both over HTTP/2 (where the server is https), as client-go speaks to the apiserver: what
  // repeats at rest (six Lease renewals a minute, volume refreshes) then costs a few header bytes.
  const onRequest = restClientObserver(base.metrics);
  const client = createApiClient(apiConfig, { clock, onRequest, signal, ...restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst), userAgent, http2: true });
  const timeoutMs = heartbeatTimeoutMs(config.nodeStatusUpdateFrequencyMs, config.nodeLeaseDurationSeconds);
  const heartbeatClient = createApiClient(apiConfig, { onRequest, clock, signal, qps: -1, timeoutMs, userAgent, http2: true });
  const clientCert = apiConfig.clientCertificate;
  if (clientCert) {
    registerCertificateTtl(base.metrics.registry, "client", () => (clientCert.kind === "inline" ? clientCert.pem : readFileSync(clientCert.path, "utf8")), () => clock.now());
  }
  return { apiConfig, client, heartbeatClient };
}
