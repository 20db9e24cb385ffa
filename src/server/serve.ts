/**
 * Listening sockets (Bun.serve) for a route table: plain HTTP, or HTTPS when `tls` names a
 * certificate and key. The caller owns the returned handle and stops it on shutdown. A port of 0
 * means "off", as in the kubelet's configuration; tests ask for an ephemeral port with randomPort.
 */
import type { Logger } from "../lib/index.ts";
import { createHandler, type Routes } from "./handler.ts";

export interface ListenOptions {
  /** Names the server in logs ("read-only", "healthz", ...). */
  name: string;
  address: string;
  port: number;
  /** Serve HTTPS with this certificate chain and private key (PEM files). */
  tls?: { certFile: string; keyFile: string };
  /** Listen on an ephemeral port (tests); the chosen port is in the handle. */
  randomPort?: boolean;
  log: Logger;
}

export interface ServerHandle {
  /** The port listened on; 0 when the server is off. */
  readonly port: number;
  stop(): Promise<void>;
}

/** The socket could not be opened (address in use, no such address, permission). */
export class ServerError extends Error {
  override readonly name = "ServerError";
  constructor(
    readonly address: string,
    readonly port: number,
    readonly code: string,
  ) {
    super(`cannot listen on ${address.includes(":") ? `[${address}]` : address}:${port}: ${code}`);
  }
}

export function listen(opts: ListenOptions, routes: Routes): ServerHandle {
  if (opts.port === 0 && !opts.randomPort) return { port: 0, stop: async () => {} };
  const log = opts.log.with({ server: opts.name });
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: opts.address,
      port: opts.randomPort ? 0 : opts.port,
      // The kubelet's server closes idle keep-alive connections after 90s.
      idleTimeout: 90,
      development: false,
      // Bun shares a port between listeners unless told not to; a second bunlet (or a kubelet)
      // on the same port must be an error, not a silent split of the traffic.
      reusePort: false,
      ...(opts.tls && { tls: { cert: Bun.file(opts.tls.certFile), key: Bun.file(opts.tls.keyFile) } }),
      fetch: createHandler(routes, log),
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new ServerError(opts.address, opts.port, typeof code === "string" ? code : String(err));
  }
  const port = server.port ?? 0;
  const paths = Object.keys(routes).filter((p) => !p.endsWith("/*")).join(",");
  log.info(opts.tls ? "serving HTTPS" : "serving HTTP", { address: opts.address, port, paths });
  return {
    port,
    async stop() {
      await server.stop(true);
      log.debug("HTTP server stopped", { port }, 2);
    },
  };
}
