/**
 * A thin Kubernetes API client on Bun's fetch (whose `tls: { ca, cert, key }` is honoured, where
 * @kubernetes/client-node's undici agent is not under Bun), or on node:http2 for the requests of
 * a client made with `http2` (http2.ts; watches stay on fetch). JSON on the wire, objects typed with
 * kubernetes-types, paths spelled by the caller (see paths.ts). Every request waits for the
 * client-side rate limiter (client-go's token bucket), carries the kubeconfig's credentials,
 * honours the caller's signal and the client's per-request deadline, retries what client-go
 * retries (429 and 5xx with Retry-After, up to 10 times; a 401 once after fresh credentials) and
 * fails with one ApiError.
 */
import { anySignal, realClock } from "../lib/index.ts";
import { createCredentials, CredentialError, type TlsOptions } from "./credentials.ts";
import { ApiError, errorFromResponse } from "./errors.ts";
import type { ApiClientConfig } from "./kubeconfig.ts";
import { protobufResourceVersion, ProtobufError } from "./protobuf-meta.ts";
import { createHttp2Transport } from "./http2.ts";
import { createRateLimiter } from "./rate-limiter.ts";
import type { ApiClient, ApiClientOptions, Call, PatchType, Query, RequestOptions, Sent, WatchEvent, WatchOptions } from "./types.ts";
import { watchEvents } from "./watch-stream.ts";

/** client-go's defaults when a config sets none (the kubelet passes kubeAPIQPS 50 / kubeAPIBurst 100). */
const DEFAULT_QPS = 5;
const DEFAULT_BURST = 10;
/** client-go's maxRetries for Retry-After answers. */
const MAX_RETRIES = 10;
/** A watch gets this long past its own timeoutSeconds before bunlet gives up on a silent connection. */
const WATCH_GRACE_MS = 30_000;
/**
 * The deadline of a request (not a watch) when the client sets none: the longest the kubelet's
 * client waits on an apiserver that accepted the request and went silent (client-go's HTTP/2
 * connection health check: a ping after 30 s without a frame, the connection closed when the
 * ping has no answer within 15 s). Without it a frozen apiserver holds a request forever.
 */
const DEFAULT_REQUEST_TIMEOUT_MS = 45_000;

const patchContentType: Record<PatchType, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  "strategic-merge": "application/strategic-merge-patch+json",
};

/** The apiserver's protobuf encoding, asked for with JSON as the fallback (CRDs have no protobuf). */
const PROTOBUF = "application/vnd.kubernetes.protobuf";
/**
 * The object's metadata only (client-go's metadata client asks for it so, patches included):
 * PartialObjectMetadata, in protobuf, else in JSON, else the whole object in JSON.
 */
const METADATA_ONLY = `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json`;

/**
 * client-go's reading of a rest.Config's QPS and Burst (RESTClientFor): 0 is the default, 5 QPS
 * with a burst of 10, which is what the kubelet's clients get from kubeAPIQPS/kubeAPIBurst 0; a
 * negative QPS stays (no limit).
 */
export function restClientLimits(qps: number, burst: number): { qps: number; burst: number } {
  return { qps: qps || DEFAULT_QPS, burst: burst || DEFAULT_BURST };
}

export function createApiClient(config: ApiClientConfig, opts: ApiClientOptions = {}): ApiClient {
  const clock = opts.clock ?? realClock;
  const limiter = createRateLimiter(clock, opts.qps ?? DEFAULT_QPS, opts.burst ?? DEFAULT_BURST);
  const credentials = createCredentials(config, { clock, exec: opts.exec, env: opts.env });
  const userAgent = opts.userAgent ?? "bunlet";
  const h2 = opts.http2 && config.server.startsWith("https://") ? createHttp2Transport() : undefined;
  if (h2) opts.signal?.addEventListener("abort", () => h2.close(), { once: true });

  // client-go's metrics name the server by the URL's host:port.
  const serverHost = URL.canParse(config.server) ? new URL(config.server).host : config.server;
  const url = (path: string, query?: Query) => {
    const u = new URL(config.server + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== "") u.searchParams.set(k, String(v));
    return u;
  };

  /**
   * One HTTP exchange with retries; returns a 2xx response and `release`, which stops its
   * deadline once the body has been read (for a watch: once the stream ends).
   */
  const send = async (call: Call): Promise<Sent> => {
    const what = `${call.verb} ${call.path}`;
    let retriedAuth = false;
    for (let attempt = 0; ; attempt++) {
      const signal = anySignal(opts.signal, call.signal);
      await limiter.wait(signal);
      const deadline = new AbortController();
      const timeoutMs = call.timeoutMs ?? opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const timer = timeoutMs > 0 ? clock.setTimer(timeoutMs, () => deadline.abort()) : undefined;
      const requestSignal = anySignal(signal, deadline.signal);
      let res: Response;
      const started = clock.now();
      const observe = (code: string) => opts.onRequest?.({ method: call.verb, host: serverHost, code, seconds: (clock.now() - started) / 1000 });
      try {
        let tls: TlsOptions;
        let authorization: string | undefined;
        try {
          tls = await credentials.tls(requestSignal);
          authorization = await credentials.authorization(requestSignal);
        } catch (err) {
          if (err instanceof CredentialError) throw new ApiError(`${what}: ${err.message}`, { code: 0, reason: "Unauthorized", cause: err });
          throw err;
        }
        const headers: Record<string, string> = { Accept: call.accept ?? "application/json", "User-Agent": userAgent };
        if (authorization) headers.Authorization = authorization;
        if (call.contentType) headers["Content-Type"] = call.contentType;
        res = h2 && !call.stream
          ? await h2.request(url(call.path, call.query), { method: call.verb, headers, body: call.body, signal: requestSignal, tls })
          : await fetch(url(call.path, call.query), {
              method: call.verb,
              headers,
              body: call.body,
              signal: requestSignal,
              tls,
            } as RequestInit);
      } catch (err) {
        timer?.cancel();
        if (!(err instanceof ApiError)) observe("<error>");
        if (signal.aborted) throw signal.reason ?? err;
        if (err instanceof ApiError) throw err;
        if (deadline.signal.aborted) throw noAnswer(what, timeoutMs, err);
        throw new ApiError(`${what}: cannot reach ${config.server}: ${(err as Error).message ?? String(err)}`, {
          code: 0,
          reason: "ConnectionFailed",
          cause: err,
        });
      }
      observe(String(res.status));
      if (res.ok) return { res, release: () => timer?.cancel(), timedOut: () => deadline.signal.aborted, timeoutMs, abort: () => deadline.abort() };
      // A Status in protobuf is not read: the code gives the reason.
      const text = isProtobuf(res) ? `(a ${PROTOBUF} Status)` : await res.text().catch(() => "");
      timer?.cancel();
      const err = errorFromResponse(what, res.status, text, res.headers.get("Retry-After"));
      if (res.status === 401 && !retriedAuth && credentials.invalidate()) {
        retriedAuth = true;
        continue;
      }
      const retryable = res.status === 429 || (res.status >= 500 && err.retryAfterSeconds !== undefined);
      if (retryable && err.retryAfterSeconds !== undefined && attempt < MAX_RETRIES) {
        await clock.sleep(Math.max(1, err.retryAfterSeconds) * 1000, signal);
        continue;
      }
      throw err;
    }
  };

  /** The answer's body broke off: the deadline passed while it came, or the connection failed. */
  const bodyFailed = (call: Call, sent: Sent, err: unknown): unknown => {
    if (call.signal?.aborted || opts.signal?.aborted) return err;
    if (sent.timedOut()) return noAnswer(`${call.verb} ${call.path}`, sent.timeoutMs, err);
    return new ApiError(`${call.verb} ${call.path}: reading the answer from ${config.server} failed: ${(err as Error).message}`, {
      code: 0,
      reason: "ConnectionFailed",
      cause: err,
    });
  };

  /**
   * No answer within the deadline: the apiserver accepted the request and said nothing (frozen,
   * overloaded, or a link that drops packets). The caller says what it does next.
   */
  const noAnswer = (what: string, timeoutMs: number, cause: unknown) =>
    new ApiError(`${what}: no answer from ${config.server} within ${timeoutMs / 1000} s; the request was abandoned`, { code: 0, reason: "ClientTimeout", cause });

  const json = async <T>(call: Call): Promise<T> => {
    const sent = await send(call);
    const { res, release } = sent;
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw bodyFailed(call, sent, err);
    } finally {
      release();
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(`${call.verb} ${call.path}: the answer is not JSON: ${text.slice(0, 120)}`, { code: res.status, reason: "Unknown" });
    }
  };

  const bodyCall = (verb: string, path: string, body: unknown, contentType: string, o: RequestOptions = {}): Call => ({
    verb,
    path,
    body: JSON.stringify(body),
    contentType,
    query: o.query,
    signal: o.signal,
    timeoutMs: o.timeoutMs,
  });

  return {
    server: config.server,
    get: (path, o = {}) => json({ verb: "GET", path, query: { resourceVersion: o.resourceVersion, ...o.query }, signal: o.signal, timeoutMs: o.timeoutMs }),
    list: (path, o = {}) =>
      json({
        verb: "GET",
        path,
        query: {
          labelSelector: o.labelSelector,
          fieldSelector: o.fieldSelector,
          resourceVersion: o.resourceVersion,
          resourceVersionMatch: o.resourceVersionMatch,
          limit: o.limit,
          continue: o.continue,
          ...o.query,
        },
        signal: o.signal,
        timeoutMs: o.timeoutMs,
      }),
    create: (path, body, o) => json(bodyCall("POST", path, body, "application/json", o)),
    update: (path, body, o) => json(bodyCall("PUT", path, body, "application/json", o)),
    patch: (path, patch, type, o) => json(bodyCall("PATCH", path, patch, patchContentType[type], o)),
    patchResourceVersion: async (path, patch, type, o) => {
      const call = { ...bodyCall("PATCH", path, patch, patchContentType[type], o), accept: METADATA_ONLY };
      const sent = await send(call);
      const { res, release } = sent;
      try {
        let bytes: ArrayBuffer;
        try {
          bytes = await res.arrayBuffer();
        } catch (err) {
          throw bodyFailed(call, sent, err);
        }
        const body = new Uint8Array(bytes);
        if (isProtobuf(res)) return protobufResourceVersion(body);
        const rv = (JSON.parse(new TextDecoder().decode(body)) as KubeObjectLike).metadata?.resourceVersion;
        if (!rv) throw new ProtobufError("the answer's metadata has no resourceVersion");
        return rv;
      } catch (err) {
        if (err instanceof ProtobufError || err instanceof SyntaxError) {
          throw new ApiError(`PATCH ${path}: cannot read the answer from ${config.server}: ${err.message}`, { code: res.status, reason: "Unknown", cause: err });
        }
        throw err;
      } finally {
        release();
      }
    },
    delete: (path, o = {}) => {
      const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "v1" };
      if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
      if (o.preconditions) body.preconditions = o.preconditions;
      if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
      return json(bodyCall("DELETE", path, body, "application/json", o));
    },
    watch<T>(path: string, o: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
      const timeoutSeconds = o.timeoutSeconds;
      const call: Call = {
        verb: "GET",
        path,
        query: {
          watch: 1,
          labelSelector: o.labelSelector,
          fieldSelector: o.fieldSelector,
          resourceVersion: o.resourceVersion,
          allowWatchBookmarks: o.allowWatchBookmarks ? "true" : undefined,
          timeoutSeconds,
          ...o.query,
        },
        signal: o.signal,
        stream: true,
        timeoutMs: o.timeoutMs ?? (timeoutSeconds ? timeoutSeconds * 1000 + WATCH_GRACE_MS : 0),
      };
      return watchEvents<T>(send, call, { clientSignal: opts.signal, server: config.server, clock, idleTimeoutMs: o.idleTimeoutMs ?? 0 });
    },
  };
}

interface KubeObjectLike {
  metadata?: { resourceVersion?: string };
}

function isProtobuf(res: Response): boolean {
  return (res.headers.get("Content-Type") ?? "").startsWith(PROTOBUF);
}
