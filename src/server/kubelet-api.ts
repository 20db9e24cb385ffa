/**
 * The kubelet API (the kubelet's :10250, pkg/kubelet/server/server.go): HTTPS on --port with
 * node:tls, whose sockets a node:http server reads, because the handler must see the client's
 * certificate (Bun.serve checks one but does not show it). Every request, upgrades included, is
 * authenticated (401 "Unauthorized" otherwise) and authorized with the kubelet's request
 * attributes (403 "Forbidden (user=…, verb=…, resource=nodes, subresource(s)=[…])") before
 * anything runs. Then: the GET route table (/healthz, /pods, /metrics, /metrics/probes,
 * /stats/summary, /spec/), /containerLogs, POST /run, and the streaming paths /exec, /attach,
 * /portForward, whose upgraded connections are proxied to the runtime's streaming server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { allContainerStatuses } from "../container/index.ts";
import { isCriError, type CriClient } from "../cri/index.ts";
import { realClock, type Clock, type Logger } from "../lib/index.ts";
import type { Authenticator, AuthnRequest, PeerCertificate, UserInfo } from "./authn.ts";
import type { Authorizer } from "./authz.ts";
import { containerLogs, HttpError, type ContainerLogsDeps } from "./container-logs.ts";
import { defaultConnectionLimits, type ConnectionLimits } from "./connections.ts";
import { createHandler, requestUrl, type Routes } from "./handler.ts";
import { listenHttp, type RequestConnection } from "./http-listener.ts";
import { requestAttributes } from "./request-attributes.ts";
import type { RequestObserver } from "./request-metrics.ts";
import { send, textResponse } from "./respond.ts";
import type { ServerHandle } from "./serve.ts";
import type { ServingCert } from "./serving-cert.ts";
import { proxyUpgrade, streamingUrl, type StreamKind, type StreamingDeps } from "./streaming.ts";

export interface KubeletApiOptions {
  address: string;
  port: number;
  /** An ephemeral port (tests). */
  randomPort?: boolean;
  cert: ServingCert;
  /** PEM bundle of the client CA (--client-ca-file); without it no certificate is asked for. */
  clientCA?: Buffer;
  nodeName: string;
  authenticate: Authenticator;
  authorize: Authorizer;
  /** The GET routes: /healthz, /pods, /metrics, /metrics/probes, /stats/summary, /spec/. */
  routes: Routes;
  /** Pod lookup (with its API status) for logs, exec, attach, port-forward and run. */
  pods: ContainerLogsDeps & StreamingDeps;
  cri: CriClient;
  /** The TLS versions and TLS 1.2 suites offered (--tls-min-version, --tls-cipher-suites). */
  tls: TlsPolicy;
  /** Timeouts and the cap on unauthenticated connections; the defaults unless a test shortens them. */
  limits?: ConnectionLimits;
  clock?: Clock;
  log: Logger;
  /** The kubelet_http_* instrumentation (server_type "readwrite"). */
  observe?: RequestObserver;
}

/** The paths the kubelet API serves besides its GET route table, for the request metrics' buckets. */
export const kubeletApiPaths = ["/containerLogs/*", "/run/*", "/exec/*", "/attach/*", "/portForward/*"];

/** node:tls's spelling of the kubelet's TLS options. */
export interface TlsPolicy {
  minVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  /** An OpenSSL cipher list for TLS 1.2 and below (TLS 1.3's suites are not configurable, as in Go). */
  ciphers: string;
}

type Decision = { ok: true; user: UserInfo } | { ok: false; status: number; body: string };

/** Credentials a client sent to bunlet that the runtime's streaming server must not see. */
const credentialHeaders = new Set(["authorization", "proxy-authorization", "cookie"]);

function isFollow(query: URLSearchParams): boolean {
  const v = query.get("follow");
  return v === "true" || v === "1";
}

function peerCertificate(socket: Socket): PeerCertificate | undefined {
  const tls = socket as TLSSocket;
  if (typeof tls.getPeerCertificate !== "function") return undefined;
  const c = tls.getPeerCertificate();
  if (!c || Object.keys(c).length === 0) return undefined;
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  return { verified: tls.authorized === true, commonName: list(c.subject?.CN)[0], organizations: list(c.subject?.O) };
}

const streamKinds: Record<string, StreamKind> = { exec: "exec", attach: "attach", portForward: "portForward" };

function streamKind(path: string): StreamKind | undefined {
  return streamKinds[path.split("/")[1] ?? ""];
}

function errorStatus(err: unknown): { status: number; body: string } {
  if (err instanceof HttpError) return { status: err.status, body: err.message };
  if (isCriError(err)) return { status: 500, body: err.message };
  return { status: 500, body: err instanceof Error ? err.message : String(err) };
}

export async function listenKubeletApi(opts: KubeletApiOptions): Promise<ServerHandle> {
  const log = opts.log.with({ server: "kubelet" });
  const getRoutes = createHandler(opts.routes, log);

  const check = async (req: IncomingMessage, path: string, conn: RequestConnection, signal: AbortSignal): Promise<Decision> => {
    const authn: AuthnRequest = { cert: peerCertificate(req.socket), authorization: req.headers.authorization };
    const user = await opts.authenticate(authn, signal);
    if (!user) return { ok: false, status: 401, body: "Unauthorized" };
    if (!user.groups.includes("system:unauthenticated")) conn.authenticated();
    const attrs = requestAttributes(req.method ?? "", path, opts.nodeName);
    for (const attr of attrs) {
      try {
        if (await opts.authorize(user, attr, signal)) return { ok: true, user };
      } catch (err) {
        log.error("Authorization error", { user: user.name, verb: attr.verb, resource: attr.resource, subresource: attr.subresource, err });
        return { ok: false, status: 500, body: `Authorization error (user=${user.name}, verb=${attr.verb}, resource=${attr.resource}, subresource=${attr.subresource})` };
      }
    }
    const subresources = attrs.map((a) => a.subresource);
    log.debug("Forbidden", { user: user.name, verb: attrs[0].verb, resource: "nodes", "subresource(s)": subresources }, 2);
    return { ok: false, status: 403, body: `Forbidden (user=${user.name}, verb=${attrs[0].verb}, resource=nodes, subresource(s)=[${subresources.join(" ")}])\n` };
  };

  const serve = async (req: IncomingMessage, url: URL, signal: AbortSignal): Promise<Response> => {
    const path = url.pathname;
    if (streamKind(path)) {
      // Validates the request as the kubelet does before it finds the connection is no upgrade.
      await streamingUrl(opts.pods, streamKind(path)!, path, url.searchParams, signal);
      return new Response("Upgrade request required\n", { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    if (path.startsWith("/containerLogs/")) {
      if (req.method !== "GET" && req.method !== "HEAD") return new Response("405: Method Not Allowed", { status: 405 });
      return containerLogs(opts.pods, path, url.searchParams, signal);
    }
    if (path.startsWith("/run/")) {
      if (req.method !== "POST") return new Response("405: Method Not Allowed", { status: 405 });
      return run(path, url.searchParams, signal);
    }
    return getRoutes(req.method ?? "GET", `${url.pathname}${url.search}`);
  };

  // POST /run/{ns}/{pod}/[{uid}/]{container}?cmd=...: ExecSync, stdout then stderr.
  const run = async (path: string, query: URLSearchParams, signal: AbortSignal): Promise<Response> => {
    const parts = path.split("/").slice(2);
    const [namespace, podName] = parts;
    const containerName = parts.length >= 4 ? parts[3] : parts[2];
    const pod = namespace && podName ? opts.pods.pod(namespace, podName) : undefined;
    if (!pod || !containerName) throw new HttpError(404, "pod does not exist");
    const status = allContainerStatuses(pod).find((c) => c.name === containerName);
    const id = status?.state?.running ? status.containerID : undefined;
    if (!id) throw new HttpError(500, `container not found ("${containerName}")`);
    const cmd = (query.get("cmd") ?? "").split(" ");
    const r = await opts.cri.runtime.execSync({ containerId: id.slice(id.indexOf("://") + 3), cmd, timeout: 0n }, { signal });
    const out = new Uint8Array(r.stdout.length + r.stderr.length);
    out.set(r.stdout, 0);
    out.set(r.stderr, r.stdout.length);
    return new Response(out, { headers: { "content-type": "application/json" } });
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse, conn: RequestConnection) => {
    const ac = new AbortController();
    res.on("close", () => ac.abort(new Error("client went away")));
    // Parsed inside the handler against a fixed base: a bad Host or target is a 400, not a crash.
    const url = requestUrl(req.url ?? "");
    let response: Response;
    if (!url) response = textResponse(400, "400 Bad Request\n");
    else {
      try {
        const decision = await check(req, url.pathname, conn, ac.signal);
        if (decision.ok && url.pathname.startsWith("/containerLogs/") && isFollow(url.searchParams)) conn.streaming();
        response = decision.ok ? await serve(req, url, ac.signal) : textResponse(decision.status, decision.body);
      } catch (err) {
        const e = errorStatus(err);
        if (e.status >= 500) log.error("HTTP request failed", { path: url.pathname, err: e.body });
        response = textResponse(e.status, e.body);
      }
    }
    await send(res, response, req.method === "HEAD");
  };

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, conn: RequestConnection) => {
    const ac = new AbortController();
    socket.on("close", () => ac.abort(new Error("client went away")));
    socket.on("error", () => socket.destroy());
    const reject = (status: number, body: string) => {
      const reason = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error" }[status] ?? "Error";
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    };
    const url = requestUrl(req.url ?? "");
    if (!url) return reject(400, "400 Bad Request\n");
    try {
      const decision = await check(req, url.pathname, conn, ac.signal);
      if (!decision.ok) return reject(decision.status, decision.body);
      const kind = streamKind(url.pathname);
      if (!kind) return reject(404, "404 page not found\n");
      const target = await streamingUrl(opts.pods, kind, url.pathname, url.searchParams, ac.signal);
      log.debug("Proxying a streaming request to the runtime", { path: url.pathname, user: decision.user.name }, 4);
      conn.streaming();
      proxyUpgrade(req, socket, head, target, log, credentialHeaders);
    } catch (err) {
      const e = errorStatus(err);
      if (e.status >= 500) log.error("Streaming request failed", { path: url.pathname, err: e.body });
      reject(e.status, e.body);
    }
  };

  const server = await listenHttp({
    name: "kubelet",
    address: opts.address,
    port: opts.port,
    randomPort: opts.randomPort,
    tls: {
      key: opts.cert.key,
      cert: opts.cert.cert,
      ...(opts.clientCA && { ca: opts.clientCA, requestCert: true }),
      rejectUnauthorized: false,
      minVersion: opts.tls.minVersion,
      ciphers: opts.tls.ciphers,
    },
    limits: opts.limits ?? defaultConnectionLimits,
    clock: opts.clock ?? realClock,
    log: opts.log,
    onRequest,
    onUpgrade,
    ...(opts.observe && { observe: opts.observe }),
  });
  log.info("serving HTTPS", { address: opts.address, port: server.port, x509: opts.clientCA !== undefined, tlsMinVersion: opts.tls.minVersion });
  return {
    port: server.port,
    async stop() {
      await server.close();
      log.debug("HTTP server stopped", { port: server.port }, 2);
    },
  };
}
