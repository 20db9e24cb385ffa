import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { healthzRoutes, listen, pathBuckets, readOnlyRoutes, requestObserver } from "../../../src/server/index.ts";
import { requestLabels } from "../../../src/server/request-metrics.ts";

const buckets = pathBuckets(["/healthz", "/healthz/*", "/pods", "/metrics", "/metrics/probes", "/metrics/cadvisor", "/stats/*", "/exec/*", "/attach/*", "/portForward/*", "/logs/*"]);

describe("the kubelet's request labels (server.go getMetricBucket, getMetricMethodBucket, isLongRunningRequest)", () => {
  test.each([
    ["GET", "/metrics", "GET", "metrics", "false"],
    ["GET", "/metrics/cadvisor?x=1", "GET", "metrics/cadvisor", "false"],
    ["GET", "/metrics/slis", "GET", "other", "false"],
    ["GET", "/healthz/syncloop", "GET", "healthz", "false"],
    ["GET", "/stats/summary", "GET", "stats", "false"],
    ["POST", "/exec/ns/pod/c?command=sh", "POST", "exec", "true"],
    ["GET", "/attach/ns/pod/c", "GET", "attach", "true"],
    // The kubelet's long-running map spells it "portforward": no bucket matches it.
    ["POST", "/portForward/ns/pod", "POST", "portForward", "false"],
    ["GET", "/logs/", "GET", "logs", "false"],
    ["GET", "/secret/path/that/grows", "GET", "other", "false"],
    ["PATCH", "/pods", "other", "pods", "false"],
    ["GET", "http://node:10255/pods", "GET", "pods", "false"],
  ])("%s %s → method %s, path %s, long_running %s", (method, target, m, path, long) => {
    expect(requestLabels(method, target, "readonly", buckets)).toEqual({ method: m, path, server_type: "readonly", long_running: long });
  });
});

test("a request is counted, in flight until it is done, and timed by the clock", async () => {
  const metrics = createMetrics(new Registry());
  const clock = new FakeClock();
  const observe = requestObserver(metrics, "readwrite", buckets, clock);
  const done = observe("GET", "/containerLogs/ns/p/c?follow=true");
  const labels = { method: "GET", path: "other", server_type: "readwrite", long_running: "false" };
  expect((await metrics.httpInflightRequests.get()).values).toEqual([{ labels, value: 1 }]);
  await clock.advance(1500);
  done();
  done();
  expect((await metrics.httpInflightRequests.get()).values).toEqual([{ labels, value: 0 }]);
  expect((await metrics.httpRequests.get()).values).toEqual([{ labels, value: 1 }]);
  const sum = (await metrics.httpRequestsDuration.get()).values.find((v) => v.metricName === "kubelet_http_requests_duration_seconds_sum");
  expect(sum?.value).toBe(1.5);
});

test("the read-only port counts its requests: a second scrape shows the first", async () => {
  const log = createMemoryLogger();
  const metrics = createMetrics(new Registry());
  const routes = { ...healthzRoutes({ checks: [], log }), ...readOnlyRoutes({ metrics: metrics.registry }) };
  const s = await listen({ name: "read-only", address: "127.0.0.1", port: 0, randomPort: true, log, observe: requestObserver(metrics, "readonly", pathBuckets(Object.keys(routes)), new FakeClock()) }, routes);
  try {
    await (await fetch(`http://127.0.0.1:${s.port}/metrics`)).text();
    await (await fetch(`http://127.0.0.1:${s.port}/nothing/here`)).text();
    const text = await (await fetch(`http://127.0.0.1:${s.port}/metrics`)).text();
    expect(text).toContain('kubelet_http_requests_total{method="GET",path="metrics",server_type="readonly",long_running="false"} 2');
    expect(text).toContain('kubelet_http_requests_total{method="GET",path="other",server_type="readonly",long_running="false"} 1');
    // The scrape that renders this is itself in flight.
    expect(text).toContain('kubelet_http_inflight_requests{method="GET",path="metrics",server_type="readonly",long_running="false"} 1');
  } finally {
    await s.stop();
  }
});
