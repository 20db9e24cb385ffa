/**
 * The read-only and healthz ports: a route table served over plain HTTP (or HTTPS when `tls`
 * names a certificate and key) with the same connection timeouts and limits as the kubelet API.
 * The caller owns the returned handle and stops it on shutdown. A port of 0 means "off", as in
 * the kubelet's configuration; tests ask for an ephemeral port with randomPort.
 */
import { readFileSync } from "node:fs";
import { realClock, type Clock, type Logger } from "../lib/index.ts";
import { defaultConnectionLimits, type ConnectionLimits } from "./connections.ts";
import { createHandler, type Routes } from "./handler.ts";
import { listenHttp } from "./http-listener.ts";
import type { RequestObserver } from "./request-metrics.ts";
import { send } from "./respond.ts";

export { ServerError } from "./http-listener.ts";

export interface ListenOptions {
  /** Names the server in logs ("read-only", "healthz", ...). */
  name: string;
  address: string;
  port: number;
  /** Serve HTTPS with this certificate chain and private key (PEM files). */
  tls?: { certFile: string; keyFile: string };
  /** Listen on an ephemeral port (tests); the chosen port is in the handle. */
  randomPort?: boolean;
  /** Timeouts and the connection cap; the defaults unless a test shortens them. */
  limits?: ConnectionLimits;
  clock?: Clock;
  log: Logger;
  /** The kubelet_http_* instrumentation (the read-only port's). */
  observe?: RequestObserver;
}

export interface ServerHandle {
  /** The port listened on; 0 when the server is off. */
  readonly port: number;
  stop(): Promise<void>;
}

export async function listen(opts: ListenOptions, routes: Routes): Promise<ServerHandle> {
  if (opts.port === 0 && !opts.randomPort) return { port: 0, stop: async () => {} };
  const log = opts.log.with({ server: opts.name });
  const handle = createHandler(routes, log);
  const server = await listenHttp({
    name: opts.name,
    address: opts.address,
    port: opts.port,
    randomPort: opts.randomPort,
    ...(opts.tls && { tls: { cert: readFileSync(opts.tls.certFile), key: readFileSync(opts.tls.keyFile) } }),
    limits: opts.limits ?? defaultConnectionLimits,
    clock: opts.clock ?? realClock,
    log: opts.log,
    onRequest: async (req, res) => send(res, await handle(req.method ?? "GET", req.url ?? "/"), req.method === "HEAD"),
    ...(opts.observe && { observe: opts.observe }),
  });
  const port = server.port;
  const paths = Object.keys(routes).filter((p) => !p.endsWith("/*")).join(",");
  log.info(opts.tls ? "serving HTTPS" : "serving HTTP", { address: opts.address, port, paths });
  return {
    port,
    async stop() {
      await server.close();
      log.debug("HTTP server stopped", { port }, 2);
    },
  };
}
