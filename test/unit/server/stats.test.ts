import { describe, expect, test } from "bun:test";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { statsRoutes } from "../../../src/server/index.ts";
import { createHandler } from "../../../src/server/handler.ts";

function setup(summary: (q: { onlyCpuAndMemory: boolean }) => Promise<string>) {
  const handle = createHandler(
    statsRoutes({ summary, spec: async () => '{"num_cores":2}', resourceMetrics: async () => "resource_scrape_error 0\n", cadvisorMetrics: async () => "container_scrape_error 0\n", metricsContentType: "text/plain; version=0.0.4" }),
    createMemoryLogger(),
  );
  return (path: string) => handle("GET", path);
}

describe("/stats/summary", () => {
  test("answers the provider's JSON", async () => {
    const seen: boolean[] = [];
    const get = setup(async (q) => {
      seen.push(q.onlyCpuAndMemory);
      return '{"node":{"nodeName":"n"},"pods":[]}';
    });
    const res = await get("/stats/summary");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ node: { nodeName: "n" }, pods: [] });
    await get("/stats/summary?only_cpu_and_memory=true");
    await get("/stats/summary?only_cpu_and_memory=1");
    expect(seen).toEqual([false, true, false]);
  });

  test("a provider failure is a 500 naming it", async () => {
    const res = await setup(async () => {
      throw new Error("ListContainerStats: unavailable");
    })("/stats/summary");
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("ListContainerStats: unavailable");
  });
});

test("/spec/ (and /spec) answer the machine info", async () => {
  const get = setup(async () => "{}");
  for (const path of ["/spec/", "/spec"]) {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ num_cores: 2 });
  }
});

test("/metrics/resource and /metrics/cadvisor answer their metrics as Prometheus text", async () => {
  for (const [path, body] of [
    ["/metrics/resource", "resource_scrape_error 0\n"],
    ["/metrics/cadvisor", "container_scrape_error 0\n"],
  ]) {
    const res = await setup(async () => "{}")(path!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4");
    expect(await res.text()).toBe(body!);
  }
});
