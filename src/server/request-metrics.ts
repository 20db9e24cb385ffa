/**
 * The kubelet server's request instrumentation (server.go ServeHTTP): each request is counted,
 * held in kubelet_http_inflight_requests while it is served (a followed log or an exec stream for
 * as long as it lasts) and timed, under labels that never grow with the request: the method when
 * it is one of HTTP's eight, else "other"; the path's root ("metrics/cadvisor" for the /metrics/…
 * endpoints, else the first segment) when the server routes it, else "other"; long_running for
 * exec, attach and debug. As in the kubelet, "portForward" is not long-running: its map spells it
 * "portforward", which no path bucket is.
 */
import type { Clock } from "../lib/index.ts";

type Labels = { method: string; path: string; server_type: string; long_running: string };

/** The three kubelet_http_* families (src/metrics serverMetrics). */
export interface RequestMetrics {
  httpRequests: { inc(labels: Labels): void };
  httpInflightRequests: { inc(labels: Labels): void; dec(labels: Labels): void };
  httpRequestsDuration: { observe(labels: Labels, seconds: number): void };
}

/** Called when a request's headers are read; the returned function when its answer is done. */
export type RequestObserver = (method: string, target: string) => () => void;

const methodBuckets = new Set(["OPTIONS", "GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "CONNECT"]);
const longRunning = new Set(["exec", "attach", "portforward", "debug"]);

/** getURLRootPath: "metrics/<x>" for /metrics/<x>/…, else the first segment. */
function urlRootPath(path: string): string {
  const parts = path.replace(/^\//, "").split("/", 3);
  if (parts[0] === "metrics" && parts.length > 1) return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

/** The path buckets of a route table: each route's root ("/logs/*" → "logs"). */
export function pathBuckets(paths: Iterable<string>): Set<string> {
  return new Set([...paths].map((p) => urlRootPath(p.replace(/\/\*$/, ""))));
}

export function requestLabels(method: string, target: string, serverType: string, buckets: ReadonlySet<string>): Labels {
  // The target's path without its query; an absolute-form target keeps only its path.
  const path = target.replace(/^https?:\/\/[^/]*/i, "").split("?", 1)[0]!;
  const root = urlRootPath(path);
  const bucket = buckets.has(root) ? root : "other";
  return { method: methodBuckets.has(method) ? method : "other", path: bucket, server_type: serverType, long_running: String(longRunning.has(bucket)) };
}

export function requestObserver(metrics: RequestMetrics, serverType: "readonly" | "readwrite", buckets: ReadonlySet<string>, clock: Clock): RequestObserver {
  return (method, target) => {
    const labels = requestLabels(method, target, serverType, buckets);
    const start = clock.now();
    metrics.httpRequests.inc(labels);
    metrics.httpInflightRequests.inc(labels);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      metrics.httpInflightRequests.dec(labels);
      metrics.httpRequestsDuration.observe(labels, (clock.now() - start) / 1000);
    };
  };
}
