/**
 * Every connection to bunlet's ports (the kubelet API, the read-only and healthz ports) lives
 * under a timer for the state it is in, so no client can hold a socket (and a file descriptor)
 * longer than its state allows, and the connections no request has yet authenticated are capped.
 * The kubelet's Go http.Server has IdleTimeout 90s and MaxHeaderBytes 1 MiB, but Read/WriteTimeout
 * 4h and no header or handshake bound of its own, so a slow client may keep a kubelet socket for 4h;
 * bunlet bounds the handshake and the headers as the apiserver does (ReadHeaderTimeout 32s) and a
 * request that is not a stream by the kubelet's 4h. Streams (logs -f, exec, attach, port-forward)
 * are never cut by a timer: they end when either side closes.
 *
 * Bun hands the node:tls server's 'connection' listener the TLS socket itself (not a raw one, as
 * Node does), and its node:http server enforces neither headersTimeout nor requestTimeout, nor does
 * its tls server close a socket whose handshake timed out: hence these timers.
 */
import type { Socket } from "node:net";
import type { Clock, Logger, Timer } from "../lib/index.ts";

export interface ServerTimeouts {
  /** From accept to the end of the TLS handshake. */
  tlsHandshakeMs: number;
  /** From the connection (or its handshake) to the end of the first request's headers. */
  readHeaderMs: number;
  /** A keep-alive connection waiting for its next request (the kubelet's IdleTimeout). */
  idleMs: number;
  /** A request that is not a stream, from its headers to the end of its response (the kubelet's WriteTimeout). */
  requestMs: number;
}

export const defaultServerTimeouts: Readonly<ServerTimeouts> = {
  // Go's http.Transport TLSHandshakeTimeout: what a client waits, so no client needs more.
  tlsHandshakeMs: 10_000,
  // The apiserver's ReadHeaderTimeout ("just shy of requestTimeoutUpperBound").
  readHeaderMs: 32_000,
  idleMs: 90_000,
  requestMs: 4 * 60 * 60_000,
};

/** The kubelet's MaxHeaderBytes (1 << 20): the request line and headers together. */
export const MAX_HEADER_BYTES = 1 << 20;

/**
 * Connections that no request has authenticated yet (handshaking, sending headers, or served
 * as system:anonymous): past this many, a new one is closed at once. On the read-only and
 * healthz ports, where nothing authenticates, this caps every connection.
 */
export const DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 128;

export interface ConnectionLimits {
  timeouts: ServerTimeouts;
  maxUnauthenticated: number;
}

export const defaultConnectionLimits: Readonly<ConnectionLimits> = {
  timeouts: defaultServerTimeouts,
  maxUnauthenticated: DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
};

type Phase = "handshake" | "headers" | "request" | "idle" | "stream";

interface Conn {
  phase: Phase;
  timer?: Timer;
  authenticated: boolean;
  inFlight: number;
}

export interface ConnectionGuard {
  /** A new connection: false (and closed) when the unauthenticated ones are at the cap. */
  accept(socket: Socket, tls: boolean): boolean;
  /** Its TLS handshake is done: it now has readHeaderMs to send a request. */
  secured(socket: Socket): void;
  /** A request's headers arrived; `done` is called when its response ended. */
  requestStarted(socket: Socket): { done(): void };
  /** The request on this socket is a stream (a followed log or an upgraded connection): no timer. */
  streaming(socket: Socket): void;
  /** A request on it was authenticated as a user (not anonymous): it leaves the cap's count. */
  authenticated(socket: Socket): void;
  /** Live connections (tests, shutdown). */
  readonly open: number;
  destroyAll(): void;
}

export function createConnectionGuard(opts: { name: string; limits: ConnectionLimits; clock: Clock; log: Logger }): ConnectionGuard {
  const { timeouts, maxUnauthenticated } = opts.limits;
  const conns = new Map<Socket, Conn>();
  let unauthenticated = 0;
  let refusedLogged = false;

  const enter = (socket: Socket, c: Conn, phase: Phase) => {
    c.timer?.cancel();
    c.timer = undefined;
    c.phase = phase;
    const ms = { handshake: timeouts.tlsHandshakeMs, headers: timeouts.readHeaderMs, request: timeouts.requestMs, idle: timeouts.idleMs, stream: 0 }[phase];
    if (ms <= 0) return;
    c.timer = opts.clock.setTimer(ms, () => {
      opts.log.debug("Closing a connection that outlived its timeout", { server: opts.name, phase, timeoutMs: ms, remote: socket.remoteAddress }, 4);
      socket.destroy();
    });
  };

  return {
    accept(socket, tls) {
      if (conns.has(socket)) return true;
      if (unauthenticated >= maxUnauthenticated) {
        // Logged once per burst: a flood must not become a flood of log lines.
        if (!refusedLogged) opts.log.info("Refusing connections: too many unauthenticated connections", { server: opts.name, limit: maxUnauthenticated });
        refusedLogged = true;
        socket.destroy();
        return false;
      }
      const c: Conn = { phase: "handshake", authenticated: false, inFlight: 0 };
      conns.set(socket, c);
      unauthenticated++;
      socket.once("close", () => {
        c.timer?.cancel();
        conns.delete(socket);
        if (!c.authenticated) unauthenticated--;
        if (unauthenticated < maxUnauthenticated / 2) refusedLogged = false;
      });
      enter(socket, c, tls ? "handshake" : "headers");
      return true;
    },
    secured(socket) {
      const c = conns.get(socket);
      if (c?.phase === "handshake") enter(socket, c, "headers");
    },
    requestStarted(socket) {
      const c = conns.get(socket);
      if (!c) return { done: () => {} };
      c.inFlight++;
      enter(socket, c, "request");
      let ended = false;
      return {
        done() {
          if (ended) return;
          ended = true;
          c.inFlight--;
          if (c.inFlight === 0 && conns.has(socket)) enter(socket, c, "idle");
        },
      };
    },
    streaming(socket) {
      const c = conns.get(socket);
      if (c) enter(socket, c, "stream");
    },
    authenticated(socket) {
      const c = conns.get(socket);
      if (!c || c.authenticated) return;
      c.authenticated = true;
      unauthenticated--;
    },
    get open() {
      return conns.size;
    },
    destroyAll() {
      for (const s of conns.keys()) s.destroy();
    },
  };
}
