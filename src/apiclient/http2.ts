/**
 * HTTP/2 to the apiserver (node:http2), as client-go speaks it: one TLS connection, each request
 * a stream, headers compressed with HPACK. A request repeated at rest (the Lease renewal, six
 * times a minute) then costs its few changing header bytes instead of HTTP/1.1's whole header
 * block both ways, about 500 bytes a renewal.
 *
 * One session per TLS material (a rotated client certificate dials anew): the credentials hand out
 * the same TLS object while the material does not change (credentials.ts), so a request compares
 * the object, not its few kilobytes of PEM. A request whose
 * deadline passed closes the session, as the kubelet closes its connections on a heartbeat
 * failure: the next request dials a fresh one instead of queueing behind a dead link. Answers are
 * fetch Responses, so the client reads them as it reads fetch's.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from "node:http2";
import type { TlsOptions } from "./credentials.ts";

export interface Http2Request {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  tls: TlsOptions;
}

export interface Http2Transport {
  request(url: URL, req: Http2Request): Promise<Response>;
  /** Drops the connection; the next request dials a new one. */
  reset(): void;
  close(): void;
}

export function createHttp2Transport(): Http2Transport {
  let current: { session: ClientHttp2Session; origin: string; tls: TlsOptions } | undefined;

  const drop = () => {
    const s = current?.session;
    current = undefined;
    if (s && !s.destroyed) s.destroy();
  };

  const session = (url: URL, tls: TlsOptions): ClientHttp2Session => {
    if (current && current.tls === tls && current.origin === url.origin && !current.session.closed && !current.session.destroyed) return current.session;
    drop();
    const s = connect(url.origin, {
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      rejectUnauthorized: tls.rejectUnauthorized ?? true,
      servername: tls.serverName,
    });
    const forget = () => {
      if (current?.session === s) current = undefined;
    };
    // A session's error fails its streams (each sees it); the session is then forgotten.
    s.on("error", forget);
    s.on("close", forget);
    s.on("goaway", forget);
    current = { session: s, origin: url.origin, tls };
    return s;
  };

  return {
    request(url, req) {
      if (req.signal.aborted) return Promise.reject(req.signal.reason);
      const s = session(url, req.tls);
      const headers: Record<string, string> = { ":method": req.method, ":path": url.pathname + url.search };
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
      let stream: ClientHttp2Stream;
      try {
        stream = s.request(headers, { endStream: req.body === undefined });
      } catch (err) {
        drop();
        return Promise.reject(err);
      }
      if (req.body !== undefined) stream.end(req.body);
      return answer(stream, req.signal, drop);
    },
    reset: drop,
    close: drop,
  };
}

/** The stream as a fetch Response: status and headers once they come, the body as a stream. */
function answer(stream: ClientHttp2Stream, signal: AbortSignal, drop: () => void): Promise<Response> {
  return new Promise((resolve, reject) => {
    let body: ReadableStreamDefaultController<Uint8Array> | undefined;
    let settled = false;
    const fail = (err: unknown) => {
      if (!settled) {
        settled = true;
        reject(err);
      } else body?.error(err);
      body = undefined;
    };
    const onAbort = () => {
      // A deadline or a shutdown: the stream is cancelled, and the connection dropped with it
      // (an apiserver that does not answer one stream is not trusted with the next).
      stream.close(constants.NGHTTP2_CANCEL);
      drop();
      fail(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const done = () => signal.removeEventListener("abort", onAbort);
    stream.on("error", (err) => {
      done();
      fail(err);
    });
    stream.on("response", (h) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(h)) {
        if (k.startsWith(":") || v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [String(v)]) headers.append(k, one);
      }
      const readable = new ReadableStream<Uint8Array>({
        start: (c) => {
          body = c;
        },
        cancel: () => {
          done();
          stream.close(constants.NGHTTP2_CANCEL);
        },
      });
      settled = true;
      resolve(new Response(readable, { status: Number(h[":status"]), headers }));
    });
    stream.on("data", (chunk: Buffer) => body?.enqueue(new Uint8Array(chunk)));
    stream.on("end", () => {
      done();
      body?.close();
      body = undefined;
    });
    stream.on("close", () => {
      done();
      if (!settled) fail(new Error(`the stream closed without an answer (HTTP/2 code ${stream.rstCode})`));
      else if (body && stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR) fail(new Error(`the stream was reset (HTTP/2 code ${stream.rstCode})`));
      else if (body) {
        body.close();
        body = undefined;
      }
    });
  });
}
