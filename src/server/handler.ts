/**
 * The read-only API as a fetch handler (Request → Response), kept apart from the socket so tests
 * call it directly. Routes: /healthz, /healthz/<check>, /pods (v1 PodList), /metrics and
 * /metrics/probes (Prometheus text). The healthz port's handler serves the /healthz routes only.
 */
import type { Registry } from "prom-client";
import type { PodList } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import { healthz, healthzOne, type HealthCheck, type HealthzResponse } from "./healthz.ts";

export interface HandlerOptions {
  checks: readonly HealthCheck[];
  /** The pods bunlet manages, with the status it computed. Without it /pods is 404. */
  pods?: () => PodList;
  /** Without it /metrics is 404. */
  metrics?: Registry;
  /** The probe metrics (prober_probe_total, prober_probe_duration_seconds); without it /metrics/probes is 404. */
  probeMetrics?: Registry;
  /** Extra lines for /healthz?verbose (e.g. the PLEG mode). */
  detail?: () => Record<string, unknown>;
  /** The healthz port: /healthz routes only. */
  healthzOnly?: boolean;
  log: Logger;
}

const text = (status: number, body: string, extra: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", ...extra },
  });

const notFound = () => text(404, "404 page not found\n");

const prometheus = async (registry: Registry) =>
  new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });

export function createHandler(opts: HandlerOptions): (req: Request) => Promise<Response> {
  const { log } = opts;

  const fromHealthz = (r: HealthzResponse, path: string) => {
    if (r.failed.length > 0) {
      log.debug("healthz check failed", { path, checks: r.failed.map((f) => f.name).join(","), reasons: r.failed.map((f) => f.message) }, 2);
    }
    return text(r.status, r.body);
  };

  const route = async (url: URL): Promise<Response> => {
    const path = url.pathname;
    if (path === "/healthz") {
      const q = { verbose: url.searchParams.has("verbose"), exclude: url.searchParams.getAll("exclude") };
      return fromHealthz(healthz(opts.checks, q, opts.detail), path);
    }
    if (path.startsWith("/healthz/")) return fromHealthz(healthzOne(opts.checks, path.slice("/healthz/".length)), path);
    if (opts.healthzOnly) return notFound();
    if (path === "/pods" && opts.pods) {
      return new Response(JSON.stringify(opts.pods()), { headers: { "content-type": "application/json" } });
    }
    if (path === "/metrics" && opts.metrics) return prometheus(opts.metrics);
    if (path === "/metrics/probes" && opts.probeMetrics) return prometheus(opts.probeMetrics);
    return notFound();
  };

  return async (req) => {
    const url = new URL(req.url);
    if (req.method !== "GET" && req.method !== "HEAD") {
      return text(405, "405 method not allowed\n", { allow: "GET, HEAD" });
    }
    let res: Response;
    try {
      res = await route(url);
    } catch (err) {
      log.error("read-only API request failed; answering 500", { path: url.pathname, err });
      res = text(500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    return req.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
  };
}
