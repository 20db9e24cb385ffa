/**
 * /stats/summary, the kubelet's Summary API, and /spec/, cadvisor's machine info: on the read-only
 * port now, and the same table on the kubelet API port once it exists. `?only_cpu_and_memory=true`
 * asks for CPU and memory only, as metrics-server's older releases did. The stats provider writes
 * the JSON; this side only routes.
 */
import type { Routes } from "./handler.ts";

export interface StatsRoutesOptions {
  /** The Summary as JSON text; a rejection is a 500 naming the failure. */
  summary: (query: { onlyCpuAndMemory: boolean }) => Promise<string>;
  /** The machine info as JSON text. */
  spec: () => Promise<string>;
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
  };
}
