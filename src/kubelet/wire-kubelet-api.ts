/**
 * The kubelet API area: HTTPS on --port with the serving certificate (given, or self-signed
 * under --cert-dir), authentication (client certificates against --client-ca-file, bearer
 * tokens through TokenReview, anonymous only when enabled) and authorization (SubjectAccessReview
 * or AlwaysAllow), serving the read-only table plus logs, exec, attach, port-forward and run.
 * Webhook authentication and authorization need the API server: without --kubeconfig the port
 * is served only with authorization AlwaysAllow, and tokens are not accepted.
 */
import { readFileSync } from "node:fs";
import type { PodList } from "../api/index.ts";
import { createApiClient, loadKubeconfig, restClientLimits } from "../apiclient/index.ts";
import { tlsPolicy, type BunletConfig } from "../config/index.ts";
import type { CriClient } from "../cri/index.ts";
import {
  alwaysAllow,
  createAuthenticator,
  createWebhookAuthorizer,
  kubeletApiPaths,
  listenKubeletApi,
  loadServingCert,
  pathBuckets,
  requestObserver,
  type ReviewClient,
  type Routes,
} from "../server/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import { registerCertificateTtl, restClientObserver } from "../metrics/index.ts";

export interface KubeletApiParts extends AsyncDisposable {
  /** The port served; 0 when the kubelet API is off. */
  readonly port: number;
}

export interface KubeletApiInputs {
  cri: CriClient;
  hostIPs: string[];
  randomPort: boolean;
  /** What it serves beside its own paths: the read-only table and what only this port adds. */
  routes: Routes;
  /** The pods with their status (exec, attach, port-forward and logs find their pod here). */
  pods: () => PodList;
}

/**
 * Review requests must not wait behind the pod sources' rate limit, nor hang; they have their
 * own limit, the kubelet's client's (kubeAPIQPS 50, kubeAPIBurst 100; 0 is client-go's 5 and 10,
 * as for the other clients), so a flood of requests with made-up tokens cannot become a flood of
 * TokenReviews.
 */
const REVIEW_TIMEOUT_MS = 10_000;

export async function wireKubeletApi(config: BunletConfig, base: WireBase, inputs: KubeletApiInputs): Promise<KubeletApiParts> {
  const { clock, log } = base;
  const off = { port: 0, [Symbol.asyncDispose]: async () => {} };
  if (!config.enableServer) {
    log.info("The kubelet API is off (enableServer: false)");
    return off;
  }
  const review = reviewClient(config, base);
  if (!review.serve) return off;
  const { client } = review;
  const clientCA = readClientCA(config);
  const cert = servingCert(config, base, inputs.hostIPs);
  const authenticate = createAuthenticator({
    x509: clientCA !== undefined,
    webhook: config.authenticationWebhookEnabled && client ? { client, cacheTtlMs: config.authenticationWebhookCacheTTLMs } : undefined,
    anonymous: config.anonymousAuth,
    clock,
    log,
  });
  warnIfOpenToAnyone(config, base);
  const { minVersion, ciphers } = tlsPolicy(config.tlsMinVersion, config.tlsCipherSuites);
  const authorize = authorizer(config, base, client);
  // The request metrics' path buckets: what the API serves itself, and the table.
  const buckets = pathBuckets([...kubeletApiPaths, ...Object.keys(inputs.routes)]);
  const pod = (namespace: string, name: string) => inputs.pods().items.find((p) => p.metadata?.namespace === namespace && p.metadata?.name === name);
  const handle = await listenKubeletApi({
    address: config.kubeletAddress,
    port: config.port,
    randomPort: inputs.randomPort,
    cert,
    clientCA,
    nodeName: config.nodeName,
    authenticate,
    authorize,
    routes: inputs.routes,
    pods: { pod, cri: inputs.cri, clock, log },
    cri: inputs.cri,
    tls: { minVersion, ciphers },
    clock,
    log,
    observe: requestObserver(base.metrics, "readwrite", buckets, clock),
  });
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "kubelet API server", () => handle.stop());
  return {
    port: handle.port,
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}

/**
 * The apiserver client of TokenReviews and SubjectAccessReviews, from --kubeconfig. Without one,
 * authorization mode Webhook cannot be served (serve: false), and bearer tokens are refused.
 */
function reviewClient(config: BunletConfig, base: WireBase): { serve: false } | { serve: true; client?: ReviewClient } {
  const { clock, log, signal } = base;
  if (config.kubeconfig !== "") {
    const client = createApiClient(loadKubeconfig(config.kubeconfig), {
      onRequest: restClientObserver(base.metrics),
      clock,
      signal,
      ...restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst),
      timeoutMs: REVIEW_TIMEOUT_MS,
      userAgent: "bunlet-kubelet-api",
    });
    return { serve: true, client };
  }
  if (config.authorizationMode === "Webhook") {
    log.info("The kubelet API is not served: authorization mode Webhook needs --kubeconfig (use --authorization-mode=AlwaysAllow to serve it standalone)", {
      port: config.port,
    });
    return { serve: false };
  }
  if (config.authenticationWebhookEnabled) {
    log.info("Bearer tokens are not accepted on the kubelet API: token webhook authentication needs --kubeconfig");
  }
  return { serve: true };
}

/** --client-ca-file, read once at start; unreadable stops the start with a message naming the file. */
function readClientCA(config: BunletConfig): Buffer | undefined {
  if (config.clientCAFile === "") return undefined;
  try {
    return readFileSync(config.clientCAFile);
  } catch (err) {
    throw new Error(`cannot read the client CA file ${JSON.stringify(config.clientCAFile)} (--client-ca-file): ${(err as Error).message}`);
  }
}

/** The serving certificate (given, or self-signed under --cert-dir), its expiry in /metrics. */
function servingCert(config: BunletConfig, base: WireBase, hostIPs: string[]) {
  const cert = loadServingCert({
    certFile: config.tlsCertFile,
    keyFile: config.tlsPrivateKeyFile,
    certDir: config.certDir,
    nodeName: config.nodeName,
    addresses: [...config.nodeIPs, ...hostIPs],
    log: base.log,
  });
  registerCertificateTtl(base.metrics.registry, "server", () => cert.cert.toString("utf8"), () => base.clock.now());
  return cert;
}

/** AlwaysAllow, or SubjectAccessReviews (mode Webhook, which reviewClient serves only with a client). */
function authorizer(config: BunletConfig, { clock }: WireBase, client: ReviewClient | undefined) {
  return config.authorizationMode === "AlwaysAllow"
    ? alwaysAllow
    : createWebhookAuthorizer({
        client: client!,
        authorizedTtlMs: config.authorizationCacheAuthorizedTTLMs,
        unauthorizedTtlMs: config.authorizationCacheUnauthorizedTTLMs,
        clock,
      });
}

function warnIfOpenToAnyone(config: BunletConfig, { log }: WireBase): void {
  if (config.anonymousAuth && config.authorizationMode === "AlwaysAllow") {
    log.warn(
      "INSECURE: the kubelet API serves anyone who reaches it: anonymous authentication with authorization mode AlwaysAllow lets every client read logs, exec into and attach to containers and forward ports without credentials; set --anonymous-auth=false or --authorization-mode=Webhook",
      { address: config.kubeletAddress, port: config.port },
    );
  }
}
