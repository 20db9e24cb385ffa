import { describe, expect, test } from "bun:test";
import { Counter, Registry } from "prom-client";
import type { PodList } from "../../../src/api/index.ts";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { healthzRoutes, readOnlyRoutes, type HealthCheck } from "../../../src/server/index.ts";
import { createHandler } from "../../../src/server/handler.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = makePod({ name: "web-node-a", namespace: "default", metadata: { uid: "u1" } });
const podList: PodList = { apiVersion: "v1", kind: "PodList", metadata: {}, items: [pod] };

type Options = Parameters<typeof healthzRoutes>[0] & Parameters<typeof readOnlyRoutes>[0] & { healthzOnly?: boolean };

/** The read-only port's route table (or the healthz port's, with healthzOnly) behind one handler. */
function setup(extra: Partial<Options> = {}) {
  const registry = new Registry();
  new Counter({ name: "kubelet_started_pods_total", help: "Pods started.", registers: [registry] }).inc(3);
  const probeRegistry = new Registry();
  new Counter({ name: "prober_probe_total", help: "Probes.", labelNames: ["probe_type", "result"], registers: [probeRegistry] }).inc({ probe_type: "Liveness", result: "successful" }, 2);
  const log = createMemoryLogger();
  const checks: HealthCheck[] = [{ name: "pleg", check: () => ({ ok: true }) }];
  const opts: Options = { checks, pods: () => podList, metrics: registry, probeMetrics: probeRegistry, log, ...extra };
  const routes = opts.healthzOnly ? healthzRoutes(opts) : { ...healthzRoutes(opts), ...readOnlyRoutes(opts) };
  const handle = createHandler(routes, log);
  const get = (path: string, method = "GET") => handle(method, path);
  return { get, log };
}

describe("the read-only API routes", () => {
  test("/healthz is ok when the checks pass", async () => {
    const res = await setup().get("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("ok");
  });

  test("/healthz is 500 naming the failing check, and the failure is logged at v=2", async () => {
    const { get, log } = setup({ checks: [{ name: "runtime", check: () => ({ ok: false, message: "container runtime is down" }) }] });
    const res = await get("/healthz");
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("[-]runtime failed: container runtime is down\n");
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "debug", msg: "healthz check failed", checks: ["runtime"] }));
  });

  test("/healthz?verbose and /healthz/<name>", async () => {
    const { get } = setup({ detail: () => ({ plegMode: "relist" }) });
    expect(await (await get("/healthz?verbose")).text()).toBe("[+]ping ok\n[+]pleg ok\n[i]plegMode: relist\nhealthz check passed\n");
    expect(await (await get("/healthz/pleg")).text()).toBe("ok");
    expect((await get("/healthz/nope")).status).toBe(404);
  });

  test("/pods is the v1 PodList as JSON", async () => {
    const res = await setup().get("/pods");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(podList);
  });

  test("/metrics is Prometheus text from the registry", async () => {
    const res = await setup().get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    expect(await res.text()).toContain("kubelet_started_pods_total 3\n");
  });

  test("/metrics/probes is Prometheus text from the probe registry, and /metrics does not carry it", async () => {
    const { get } = setup();
    const res = await get("/metrics/probes");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const body = await res.text();
    expect(body).toContain('prober_probe_total{probe_type="Liveness",result="successful"} 2\n');
    expect(body).not.toContain("kubelet_started_pods_total");
    expect(await (await get("/metrics")).text()).not.toContain("prober_probe_total");
  });

  const notFound = ["/", "/pods/", "/metrics/cadvisor", "/metrics/probes/", "/stats/summary", "/healthzz"];
  for (const path of notFound) {
    test(`${path} is 404`, async () => {
      const res = await setup().get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("404 page not found\n");
    });
  }

  test("without a pods source or a registry, /pods, /metrics and /metrics/probes are 404", async () => {
    const { get } = setup({ pods: undefined, metrics: undefined, probeMetrics: undefined });
    expect((await get("/pods")).status).toBe(404);
    expect((await get("/metrics")).status).toBe(404);
    expect((await get("/metrics/probes")).status).toBe(404);
  });

  test("only GET and HEAD are allowed; HEAD has the status and no body", async () => {
    const { get } = setup();
    const post = await get("/pods", "POST");
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const head = await get("/pods", "HEAD");
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  test("a failing pods() is a 500 with the reason, logged as an error", async () => {
    const { get, log } = setup({ pods: () => { throw new Error("status manager not ready"); } });
    const res = await get("/pods");
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("internal server error: status manager not ready\n");
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", path: "/pods" }));
  });
});

describe("the healthz port serves /healthz only", () => {
  test("/healthz answers, /pods, /metrics and /metrics/probes are 404", async () => {
    const { get } = setup({ healthzOnly: true });
    expect(await (await get("/healthz")).text()).toBe("ok");
    expect((await get("/healthz/ping")).status).toBe(200);
    expect((await get("/pods")).status).toBe(404);
    expect((await get("/metrics")).status).toBe(404);
    expect((await get("/metrics/probes")).status).toBe(404);
  });
});
