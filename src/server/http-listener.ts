/**
 * One way to serve HTTP for all of bunlet's ports: a node:net (or node:tls) listener hands each
 * connection, once the connection guard admitted it, to a node:http server with the kubelet's
 * 1 MiB header limit. The guard's timers follow each request. A request the HTTP parser refuses
 * gets Go's answer (431 for headers too large, else 400) and the connection is closed; nothing
 * about it is logged above verbosity 4, and never a stack.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Clock, Logger } from "../lib/index.ts";
import type { RequestObserver } from "./request-metrics.ts";
import { createConnectionGuard, MAX_HEADER_BYTES, type ConnectionGuard, type ConnectionLimits } from "./connections.ts";

/** What a handler may tell the guard about its request's connection. */
export interface RequestConnection {
  /** The response is a stream (followed log, upgraded connection): no request timer. */
  streaming(): void;
  /** A user (not anonymous) was authenticated on this connection. */
  authenticated(): void;
}

export interface HttpListenerOptions {
  name: string;
  address: string;
  port: number;
  /** An ephemeral port (tests). */
  randomPort?: boolean;
  /** Serve HTTPS with these node:tls options. */
  tls?: TlsOptions;
  limits: ConnectionLimits;
  clock: Clock;
  log: Logger;
  onRequest(req: IncomingMessage, res: ServerResponse, conn: RequestConnection): Promise<void>;
  onUpgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, conn: RequestConnection): Promise<void>;
  /** Told of each request (upgrades included) when it starts; what it returns, when it ends. */
  observe?: RequestObserver;
}

export interface HttpListener {
  readonly port: number;
  readonly guard: ConnectionGuard;
  close(): Promise<void>;
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

function clientErrorAnswer(code: string | undefined): string {
  return code === "HPE_HEADER_OVERFLOW"
    ? "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"
    : "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request";
}

export function listenHttp(opts: HttpListenerOptions): Promise<HttpListener> {
  const log = opts.log.with({ server: opts.name });
  const guard = createConnectionGuard({ name: opts.name, limits: opts.limits, clock: opts.clock, log });
  const connection = (socket: Socket): RequestConnection => ({ streaming: () => guard.streaming(socket), authenticated: () => guard.authenticated(socket) });

  const http = createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES });
  // The guard owns every timer; Node's keep-alive default (5s) must not close before its idle timer.
  http.keepAliveTimeout = opts.limits.timeouts.idleMs + 1_000;
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const request = guard.requestStarted(req.socket);
    const observed = opts.observe?.(req.method ?? "", req.url ?? "/");
    const done = () => {
      request.done();
      observed?.();
    };
    res.once("close", done);
    res.once("finish", done);
    void opts.onRequest(req, res, connection(req.socket));
  });
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    guard.requestStarted(socket as Socket);
    const observed = opts.observe?.(req.method ?? "", req.url ?? "/");
    if (observed) socket.once("close", observed);
    if (!opts.onUpgrade) return void socket.end(clientErrorAnswer(undefined));
    void opts.onUpgrade(req, socket, head, connection(socket as Socket));
  });
  http.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    log.debug("Bad HTTP request; answering and closing the connection", { code: err.code }, 4);
    if (socket.writable) socket.end(clientErrorAnswer(err.code));
    else socket.destroy();
  });

  const admit = (socket: Socket, tls: boolean) => {
    if (!guard.accept(socket, tls)) return false;
    socket.on("error", () => socket.destroy());
    return true;
  };
  let server: Server;
  if (opts.tls) {
    const tls = createTlsServer(opts.tls, (socket) => {
      // Under Bun the 'connection' socket is this TLS socket, already admitted; under Node it is
      // the raw socket, and this admits the TLS one.
      if (!admit(socket, true)) return;
      guard.secured(socket);
      http.emit("connection", socket);
    });
    tls.on("connection", (socket: Socket) => void admit(socket, true));
    // Bun reports a failed or timed-out handshake here but leaves the socket open.
    tls.on("tlsClientError", (err: NodeJS.ErrnoException, socket?: Socket) => {
      log.debug("TLS handshake failed", { err: err.code ?? err.message }, 4);
      socket?.destroy();
    });
    server = tls;
  } else {
    server = createNetServer((socket) => {
      if (admit(socket, false)) http.emit("connection", socket);
    });
  }

  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => reject(new ServerError(opts.address, opts.port, err.code ?? String(err))));
    server.listen({ port: opts.randomPort ? 0 : opts.port, host: opts.address, exclusive: true }, () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : opts.port;
      resolve({
        port,
        guard,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            guard.destroyAll();
          }),
      });
    });
  });
}
