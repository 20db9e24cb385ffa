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
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { isCriError, type CriClient } from "../cri/index.ts";
import type { Logger } from "../lib/index.ts";
import type { Authenticator, AuthnRequest, PeerCertificate, UserInfo } from "./authn.ts";
import type { Authorizer } from "./authz.ts";
import { containerLogs, HttpError, type ContainerLogsDeps } from "./container-logs.ts";
import { createHandler, type Routes } from "./handler.ts";
import { requestAttributes } from "./request-attributes.ts";
import { ServerError, type ServerHandle } from "./serve.ts";
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
  log: Logger;
}

type Decision = { ok: true; user: UserInfo } | { ok: false; status: number; body: string };

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

export function listenKubeletApi(opts: KubeletApiOptions): Promise<ServerHandle> {
  const log = opts.log.with({ server: "kubelet" });
  const getRoutes = createHandler(opts.routes, log);

  const check = async (req: IncomingMessage, path: string, signal: AbortSignal): Promise<Decision> => {
    const authn: AuthnRequest = { cert: peerCertificate(req.socket), authorization: req.headers.authorization };
    const user = await opts.authenticate(authn, signal);
    if (!user) return { ok: false, status: 401, body: "Unauthorized" };
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
    return getRoutes(new Request(url.href, { method: req.method }));
  };

  // POST /run/{ns}/{pod}/[{uid}/]{container}?cmd=...: ExecSync, stdout then stderr.
  const run = async (path: string, query: URLSearchParams, signal: AbortSignal): Promise<Response> => {
    const parts = path.split("/").slice(2);
    const [namespace, podName] = parts;
    const containerName = parts.length >= 4 ? parts[3] : parts[2];
    const pod = namespace && podName ? opts.pods.pod(namespace, podName) : undefined;
    if (!pod || !containerName) throw new HttpError(404, "pod does not exist");
    const status = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find((c) => c.name === containerName);
    const id = status?.state?.running ? status.containerID : undefined;
    if (!id) throw new HttpError(500, `container not found ("${containerName}")`);
    const cmd = (query.get("cmd") ?? "").split(" ");
    const r = await opts.cri.runtime.execSync({ containerId: id.slice(id.indexOf("://") + 3), cmd, timeout: 0n }, { signal });
    const out = new Uint8Array(r.stdout.length + r.stderr.length);
    out.set(r.stdout, 0);
    out.set(r.stderr, r.stdout.length);
    return new Response(out, { headers: { "content-type": "application/json" } });
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const ac = new AbortController();
    res.on("close", () => ac.abort(new Error("client went away")));
    const url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`);
    let response: Response;
    try {
      const decision = await check(req, url.pathname, ac.signal);
      response = decision.ok
        ? await serve(req, url, ac.signal)
        : new Response(decision.body, { status: decision.status, headers: { "content-type": "text/plain; charset=utf-8" } });
    } catch (err) {
      const e = errorStatus(err);
      if (e.status >= 500) log.error("HTTP request failed", { path: url.pathname, err });
      response = new Response(e.body, { status: e.status, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    await send(res, response, req.method === "HEAD");
  };

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const ac = new AbortController();
    socket.on("close", () => ac.abort(new Error("client went away")));
    socket.on("error", () => socket.destroy());
    const url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`);
    const reject = (status: number, body: string) => {
      const reason = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error" }[status] ?? "Error";
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    };
    try {
      const decision = await check(req, url.pathname, ac.signal);
      if (!decision.ok) return reject(decision.status, decision.body);
      const kind = streamKind(url.pathname);
      if (!kind) return reject(404, "404 page not found\n");
      const target = await streamingUrl(opts.pods, kind, url.pathname, url.searchParams, ac.signal);
      log.debug("Proxying a streaming request to the runtime", { path: url.pathname, user: decision.user.name }, 4);
      proxyUpgrade(req, socket, head, target, log);
    } catch (err) {
      const e = errorStatus(err);
      if (e.status >= 500) log.error("Streaming request failed", { path: url.pathname, err });
      reject(e.status, e.body);
    }
  };

  const http = createHttpServer((req, res) => void onRequest(req, res));
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => void onUpgrade(req, socket, head));
  const sockets = new Set<Socket>();
  const tls = createTlsServer(
    { key: opts.cert.key, cert: opts.cert.cert, ...(opts.clientCA && { ca: opts.clientCA, requestCert: true }), rejectUnauthorized: false },
    (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      http.emit("connection", socket);
    },
  );
  tls.on("tlsClientError", (err) => log.debug("TLS handshake failed", { err }, 4));
  return new Promise((resolve, reject) => {
    tls.once("error", (err: NodeJS.ErrnoException) => reject(new ServerError(opts.address, opts.port, err.code ?? String(err))));
    tls.listen(opts.randomPort ? 0 : opts.port, opts.address, () => {
      const addr = tls.address();
      const port = typeof addr === "object" && addr ? addr.port : opts.port;
      log.info("serving HTTPS", { address: opts.address, port, x509: opts.clientCA !== undefined });
      resolve({
        port,
        async stop() {
          await new Promise<void>((done) => {
            tls.close(() => done());
            for (const s of sockets) s.destroy();
          });
          log.debug("HTTP server stopped", { port }, 2);
        },
      });
    });
  });
}

async function send(res: ServerResponse, r: Response, headOnly: boolean): Promise<void> {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (k !== "transfer-encoding" && k !== "content-length") headers[k] = v;
  });
  res.writeHead(r.status, headers);
  if (headOnly || r.body === null) {
    res.end();
    return;
  }
  // A followed log may stay quiet: the client gets the headers now, not with the first line.
  res.flushHeaders();
  const reader = r.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The body failed half-way (a log file vanished): end what was sent.
  }
  res.end();
}
