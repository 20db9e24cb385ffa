/**
 * /stats/summary, the kubelet's Summary API, /spec/, cadvisor's machine info, and
 * /metrics/resource and /metrics/cadvisor, the metrics made from the same stats: on the read-only port and
 * the kubelet API port, as the kubelet serves them on both. `?only_cpu_and_memory=true`
 * asks for CPU and memory only, as metrics-server's older releases did. The stats provider writes
 * the JSON; this side only routes.
 */
import type { Routes } from "./handler.ts";

export interface StatsRoutesOptions {
  /** The Summary as JSON text; a rejection is a 500 naming the failure. */
  summary: (query: { onlyCpuAndMemory: boolean }) => Promise<string>;
  /** The machine info as JSON text. */
  spec: () => Promise<string>;
  /** /metrics/resource as Prometheus text; a failed Summary is in it (resource_scrape_error 1), not a 500. */
  resourceMetrics: () => Promise<string>;
  /** /metrics/cadvisor as Prometheus text. */
  cadvisorMetrics: () => Promise<string>;
  /** The content type of the metric texts. */
  metricsContentType: string;
}

const json = (body: string) => new Response(body, { headers: { "content-type": "application/json" } });

export function statsRoutes(opts: StatsRoutesOptions): Routes {
  return {
    "/stats/summary": async (url) => {
      const onlyCpuAndMemory = url.searchParams.getAll("only_cpu_and_memory").join() === "true";
      return json(await opts.summary({ onlyCpuAndMemory }));
    },
    "/spec/": async () => json(await opts.spec()),
    "/spec": async () => json(await opts.spec()),
    "/metrics/resource": async () => new Response(await opts.resourceMetrics(), { headers: { "content-type": opts.metricsContentType } }),
    "/metrics/cadvisor": async () => new Response(await opts.cadvisorMetrics(), { headers: { "content-type": opts.metricsContentType } }),
  };
}
