/**
 * The HTTP side of bunlet as a route table: each server is a table of path → handler, kept apart
 * from the socket so tests call it directly. A key ending in "/*" serves every path below it.
 * Only GET and HEAD are served (HEAD without the body); an unknown path is 404 and a handler that
 * throws is a 500 with the reason. The routes of the read-only port and the healthz port are
 * built here; the kubelet API on :10250 adds its own table.
 */
import type { Registry } from "prom-client";
import type { PodList } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import { healthz, healthzOne, type HealthCheck, type HealthzResponse } from "./healthz.ts";
import { textResponse } from "./respond.ts";

export type RouteHandler = (url: URL) => Response | Promise<Response>;

/** Path → handler; "/a/*" serves every path below "/a/". */
export type Routes = Record<string, RouteHandler>;

const text = textResponse;

const notFound = () => text(404, "404 page not found\n");

const prometheus = async (registry: Registry) =>
  new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });

export interface HealthzRoutesOptions {
  checks: readonly HealthCheck[];
  /** Extra lines for /healthz?verbose (e.g. the PLEG mode). */
  detail?: () => Record<string, unknown>;
  log: Logger;
}

/** /healthz and /healthz/<check>, in the format of the kubelet's healthz handler. */
export function healthzRoutes(opts: HealthzRoutesOptions): Routes {
  const answer = (r: HealthzResponse, path: string) => {
    if (r.failed.length > 0) {
      opts.log.debug("healthz check failed", { path, checks: r.failed.map((f) => f.name), reasons: r.failed.map((f) => f.message) }, 2);
    }
    return text(r.status, r.body);
  };
  return {
    "/healthz": (url) => {
      const query = { verbose: url.searchParams.has("verbose"), exclude: url.searchParams.getAll("exclude") };
      return answer(healthz(opts.checks, query, opts.detail), url.pathname);
    },
    "/healthz/*": (url) => answer(healthzOne(opts.checks, url.pathname.slice("/healthz/".length)), url.pathname),
  };
}

export interface ReadOnlyRoutesOptions {
  /** The pods bunlet manages, with the status it computed. Without it /pods is 404. */
  pods?: () => PodList;
  /** Without it /metrics is 404. */
  metrics?: Registry;
  /** The probe metrics (prober_probe_total, prober_probe_duration_seconds); without it /metrics/probes is 404. */
  probeMetrics?: Registry;
}

/** What the kubelet's read-only port serves besides /healthz: /pods, /metrics, /metrics/probes. */
export function readOnlyRoutes(opts: ReadOnlyRoutesOptions): Routes {
  const { pods, metrics, probeMetrics } = opts;
  return {
    ...(pods && { "/pods": () => new Response(JSON.stringify(pods()), { headers: { "content-type": "application/json" } }) }),
    ...(metrics && { "/metrics": () => prometheus(metrics) }),
    ...(probeMetrics && { "/metrics/probes": () => prometheus(probeMetrics) }),
  };
}

/** The route for a path: an exact key, else the longest "/*" key the path is below. */
function lookup(routes: Routes, path: string): RouteHandler | undefined {
  const exact = routes[path];
  if (exact) return exact;
  let best: { prefix: string; handler: RouteHandler } | undefined;
  for (const [key, handler] of Object.entries(routes)) {
    if (!key.endsWith("/*")) continue;
    const prefix = key.slice(0, -1);
    if (path.startsWith(prefix) && path.length > prefix.length && (!best || prefix.length > best.prefix.length)) best = { prefix, handler };
  }
  return best?.handler;
}

/**
 * The request target parsed against a fixed base: the Host header is the client's to spell, so
 * it never takes part ("Host: [" is no URL). undefined when the target itself is not a path.
 */
export function requestUrl(target: string): URL | undefined {
  try {
    if (target.startsWith("/")) return new URL(`http://localhost${target}`);
    // The absolute form ("GET http://host/path"): only its path and query are used.
    if (/^https?:\/\//i.test(target)) return new URL(target);
    return undefined;
  } catch {
    return undefined;
  }
}

/** (method, request target) → Response; a target that is no path is a 400. */
export function createHandler(routes: Routes, log: Logger): (method: string, target: string) => Promise<Response> {
  return async (method, target) => {
    const url = requestUrl(target);
    if (!url) return text(400, "400 Bad Request\n");
    if (method !== "GET" && method !== "HEAD") {
      return text(405, "405 method not allowed\n", { allow: "GET, HEAD" });
    }
    let res: Response;
    try {
      const handler = lookup(routes, url.pathname);
      res = handler ? await handler(url) : notFound();
    } catch (err) {
      log.error("HTTP request failed; answering 500", { path: url.pathname, err: err instanceof Error ? err.message : String(err) });
      res = text(500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    return method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
  };
}
