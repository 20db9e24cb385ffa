import { describe, expect, test } from "bun:test";
import { exposition, goFloat } from "../../../src/stats/exposition.ts";
import { resourceMetrics } from "../../../src/stats/resource-metrics.ts";
import { statsJson, type Summary } from "../../../src/stats/types.ts";

describe("the Prometheus text of the stats endpoints", () => {
  test("values are written as Go's strconv 'g' -1, as client_golang writes them", () => {
    expect(goFloat(0)).toBe("0");
    expect(goFloat(1)).toBe("1");
    expect(goFloat(12.5)).toBe("12.5");
    expect(goFloat(123456)).toBe("123456");
    expect(goFloat(1234567)).toBe("1.234567e+06");
    expect(goFloat(12_000_000)).toBe("1.2e+07");
    expect(goFloat(0.0001)).toBe("0.0001");
    expect(goFloat(0.00001234)).toBe("1.234e-05");
    expect(goFloat(1e21)).toBe("1e+21");
    expect(goFloat(Number.NaN)).toBe("NaN");
    expect(goFloat(Infinity)).toBe("+Inf");
  });

  test("families by name, labels by name, series by label values, escaped values, empty families left out", () => {
    const text = exposition([
      { name: "b_total", help: "B.", type: "counter", samples: [{ labels: { pod: "z", container: "a" }, value: 2, timestampMs: 1500.7 }, { labels: { pod: "a\"\n\\", container: "a" }, value: 1 }] },
      { name: "a", help: "A\nline.", type: "gauge", samples: [{ value: 3 }] },
      { name: "c", help: "C.", type: "gauge", samples: [] },
    ]);
    expect(text).toBe(
      [
        "# HELP a A\\nline.",
        "# TYPE a gauge",
        "a 3",
        "# HELP b_total B.",
        "# TYPE b_total counter",
        'b_total{container="a",pod="a\\"\\n\\\\"} 1',
        'b_total{container="a",pod="z"} 2 1500',
        "",
      ].join("\n"),
    );
  });
});

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const iso = (ms: number) => new Date(ms).toISOString();

const summary: Summary = {
  node: {
    nodeName: "n1",
    startTime: iso(T - 3600_000),
    cpu: { time: iso(T), usageCoreNanoSeconds: 12_345_000_000_000n },
    memory: { time: iso(T), workingSetBytes: 2_000_000_000n },
    swap: { time: iso(T), swapUsageBytes: 0n, swapAvailableBytes: 0n },
  },
  pods: [
    {
      podRef: { name: "web", namespace: "default", uid: "u1" },
      startTime: iso(T - 60_000),
      containers: [
        {
          name: "app",
          startTime: iso(T - 50_000),
          cpu: { time: iso(T - 100), usageCoreNanoSeconds: 1_500_000_000n },
          memory: { time: iso(T - 100), workingSetBytes: 7_000_000n },
          swap: { time: iso(T - 100), swapUsageBytes: 4096n, swapAvailableBytes: 1_000_000n },
        },
      ],
      cpu: { time: iso(T - 100), usageCoreNanoSeconds: 1_500_000_000n },
      memory: { time: iso(T - 100), workingSetBytes: 7_000_000n },
      swap: { time: iso(T - 100), swapUsageBytes: 4096n },
    },
  ],
};

describe("/metrics/resource", () => {
  test("the kubelet's families, help texts, types and labels, with the stats' millisecond timestamps", () => {
    const ts = T - 100;
    expect(resourceMetrics(summary)).toBe(
      [
        "# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds",
        "# TYPE container_cpu_usage_seconds_total counter",
        `container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 1.5 ${ts}`,
        "# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes",
        "# TYPE container_memory_working_set_bytes gauge",
        `container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 7e+06 ${ts}`,
        "# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds",
        "# TYPE container_start_time_seconds gauge",
        `container_start_time_seconds{container="app",namespace="default",pod="web"} ${goFloat((T - 50_000) / 1000)}`,
        "# HELP container_swap_limit_bytes [ALPHA] Current amount of the container swap limit in bytes. Reported only on non-windows systems",
        "# TYPE container_swap_limit_bytes gauge",
        `container_swap_limit_bytes{container="app",namespace="default",pod="web"} 1.004096e+06 ${ts}`,
        "# HELP container_swap_usage_bytes [ALPHA] Current amount of the container swap usage in bytes. Reported only on non-windows systems",
        "# TYPE container_swap_usage_bytes gauge",
        `container_swap_usage_bytes{container="app",namespace="default",pod="web"} 4096 ${ts}`,
        "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds",
        "# TYPE node_cpu_usage_seconds_total counter",
        `node_cpu_usage_seconds_total 12345 ${T}`,
        "# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes",
        "# TYPE node_memory_working_set_bytes gauge",
        `node_memory_working_set_bytes 2e+09 ${T}`,
        "# HELP node_swap_usage_bytes [ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems",
        "# TYPE node_swap_usage_bytes gauge",
        `node_swap_usage_bytes 0 ${T}`,
        "# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds",
        "# TYPE pod_cpu_usage_seconds_total counter",
        `pod_cpu_usage_seconds_total{namespace="default",pod="web"} 1.5 ${ts}`,
        "# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes",
        "# TYPE pod_memory_working_set_bytes gauge",
        `pod_memory_working_set_bytes{namespace="default",pod="web"} 7e+06 ${ts}`,
        "# HELP pod_swap_usage_bytes [ALPHA] Current amount of the pod swap usage in bytes. Reported only on non-windows systems",
        "# TYPE pod_swap_usage_bytes gauge",
        `pod_swap_usage_bytes{namespace="default",pod="web"} 4096 ${ts}`,
        "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise",
        "# TYPE resource_scrape_error gauge",
        "resource_scrape_error 0",
        "",
      ].join("\n"),
    );
  });

  test("a failed Summary is resource_scrape_error 1 and nothing else", () => {
    expect(resourceMetrics(new Error("ListContainerStats: unavailable"))).toBe(
      [
        "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise",
        "# TYPE resource_scrape_error gauge",
        "resource_scrape_error 1",
        "",
      ].join("\n"),
    );
  });

  test("stats without a counter or working set give no series for them", () => {
    const bare: Summary = { node: { nodeName: "n1", startTime: iso(T) }, pods: [{ ...summary.pods[0]!, containers: [{ name: "app", startTime: iso(T) }], cpu: undefined, memory: undefined, swap: undefined }] };
    const text = resourceMetrics(bare);
    expect(text).not.toContain("cpu_usage");
    expect(text).not.toContain("working_set");
    expect(text).toContain('container_start_time_seconds{container="app",namespace="default",pod="web"}');
  });
});

test("the Summary's JSON keeps metav1.Time's whole seconds while the stats keep milliseconds", () => {
  const json = JSON.parse(statsJson(summary)) as { node: { cpu: { time: string } }; pods: { containers: { startTime: string }[] }[] };
  expect(json.node.cpu.time).toBe("2026-01-01T12:00:00Z");
  expect(json.pods[0]!.containers[0]!.startTime).toBe("2026-01-01T11:59:10Z");
});
