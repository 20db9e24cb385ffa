/**
 * rest_client_requests_total and rest_client_request_duration_seconds, as client-go's metrics
 * adapters feed them in the kubelet: every API client of the agent (node status and lease,
 * pod sources, events, RuntimeClasses, the kubelet API's reviews) reports each attempt here.
 */
import type { Metrics } from "./index.ts";

export function restClientObserver(metrics: Metrics) {
  return (r: { method: string; host: string; code: string; seconds: number }) => {
    metrics.restClientRequests.inc({ code: r.code, method: r.method, host: r.host });
    metrics.restClientRequestDuration.observe({ verb: r.method, host: r.host }, r.seconds);
  };
}
