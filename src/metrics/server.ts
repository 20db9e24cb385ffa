/**
 * The kubelet server's families (pkg/kubelet/server/metrics/metrics.go): every request on the
 * read-only port (`server_type="readonly"`) and on the kubelet API (`"readwrite"`) is counted,
 * timed and held in flight under the kubelet's method and path buckets (src/server
 * request-metrics.ts computes those).
 */
import { Counter, Gauge, Histogram, type Registry } from "./prom.ts";
import { alpha, defBuckets } from "./kubelet.ts";

const labelNames = ["method", "path", "server_type", "long_running"];

export function serverMetrics(r: Registry[]) {
  return {
    httpRequests: new Counter({ name: "kubelet_http_requests_total", help: alpha("Number of the http requests received since the server started"), labelNames, registers: r }),
    httpRequestsDuration: new Histogram({
      name: "kubelet_http_requests_duration_seconds",
      help: alpha("Duration in seconds to serve http requests"),
      labelNames,
      buckets: defBuckets,
      registers: r,
    }),
    httpInflightRequests: new Gauge({ name: "kubelet_http_inflight_requests", help: alpha("Number of the inflight http requests"), labelNames, registers: r }),
    // Where container stats come from: bunlet reads them from the CRI (ListContainerStats).
    metricsProvider: new Gauge({
      name: "kubelet_metrics_provider",
      help: alpha("Metrics provider used by kubelet to collect container stats. Values can be 'cadvisor' and 'cri'"),
      labelNames: ["provider"],
      registers: r,
    }),
  };
}
