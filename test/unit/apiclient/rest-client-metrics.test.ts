import { expect, test } from "bun:test";
import { createApiClient, type ApiClientConfig } from "../../../src/apiclient/index.ts";
import { createMetrics, restClientObserver } from "../../../src/metrics/index.ts";


test("every request attempt is counted as client-go counts it: code, method and host; latency by verb and host", async () => {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => (new URL(req.url).pathname === "/api/v1/nodes/n1" ? Response.json({ kind: "Node" }) : Response.json({ kind: "Status", code: 404, reason: "NotFound" }, { status: 404 })),
  });
  try {
    const config: ApiClientConfig = {
      server: `http://127.0.0.1:${server.port}`,
      insecureSkipTLSVerify: false,
      credentials: { kind: "none" },
      source: { file: "test", context: "c", cluster: "c", user: "u" },
    };
    const metrics = createMetrics();
    const client = createApiClient(config, { qps: -1, onRequest: restClientObserver(metrics) });
    await client.get("/api/v1/nodes/n1");
    await client.get("/api/v1/nodes/n1");
    await client.get("/api/v1/nodes/n2").catch(() => {});
    // Nothing listens there: no answer is the code "<error>".
    const gone = createApiClient({ ...config, server: "http://127.0.0.1:1" }, { qps: -1, onRequest: restClientObserver(metrics) });
    await gone.get("/api/v1/nodes/n1").catch(() => {});
    const text = await metrics.registry.metrics();
    const host = `127.0.0.1:${server.port}`;
    expect(text).toContain("# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned by status code, method, and host.");
    expect(text).toContain(`rest_client_requests_total{code="200",method="GET",host="${host}"} 2`);
    expect(text).toContain(`rest_client_requests_total{code="404",method="GET",host="${host}"} 1`);
    expect(text).toContain('rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:1"} 1');
    expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 3`);
    expect(text).toContain(`rest_client_request_duration_seconds_bucket{le="60",verb="GET",host="${host}"} 3`);
  } finally {
    server.stop(true);
  }
});
