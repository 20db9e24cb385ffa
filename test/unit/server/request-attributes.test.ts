import { describe, expect, test } from "bun:test";
import { requestAttributes } from "../../../src/server/request-attributes.ts";

describe("the kubelet's request attributes (auth.go GetRequestAttributes, fine-grained authz)", () => {
  const cases: [method: string, path: string, verb: string, subresources: string[]][] = [
    ["GET", "/stats/summary", "get", ["stats"]],
    ["GET", "/stats/", "get", ["stats"]],
    ["GET", "/stats", "get", ["stats"]],
    ["GET", "/statsx", "get", ["proxy"]],
    ["GET", "/metrics", "get", ["metrics"]],
    ["GET", "/metrics/probes", "get", ["metrics"]],
    ["GET", "/metrics/cadvisor", "get", ["metrics"]],
    ["GET", "/metrics/resource", "get", ["metrics"]],
    ["GET", "/metricsx", "get", ["proxy"]],
    ["GET", "/logs/", "get", ["log"]],
    ["GET", "/logs/syslog", "get", ["log"]],
    ["GET", "/logs", "get", ["log"]],
    ["GET", "/logs/containerd/containerd.log", "get", ["log"]],
    ["GET", "/logsx", "get", ["proxy"]],
    ["POST", "/checkpoint/ns/pod/c", "create", ["checkpoint"]],
    ["GET", "/pods", "get", ["pods", "proxy"]],
    ["GET", "/pods/", "get", ["pods", "proxy"]],
    ["GET", "/runningpods/", "get", ["pods", "proxy"]],
    ["GET", "/runningpods", "get", ["pods", "proxy"]],
    ["GET", "/healthz", "get", ["healthz", "proxy"]],
    ["GET", "/healthz/syncloop", "get", ["healthz", "proxy"]],
    ["GET", "/configz", "get", ["configz", "proxy"]],
    ["GET", "/flagz", "get", ["configz"]],
    ["GET", "/statusz", "get", ["statusz"]],
    ["GET", "/containerLogs/default/web/app", "get", ["proxy"]],
    ["POST", "/exec/default/web/app", "create", ["proxy"]],
    ["GET", "/exec/default/web/app", "get", ["proxy"]],
    ["POST", "/portForward/default/web", "create", ["proxy"]],
    ["POST", "/run/default/web/app", "create", ["proxy"]],
    ["PUT", "/x", "update", ["proxy"]],
    ["PATCH", "/x", "patch", ["proxy"]],
    ["DELETE", "/x", "delete", ["proxy"]],
    ["HEAD", "/pods", "", ["pods", "proxy"]],
  ];
  for (const [method, path, verb, subresources] of cases) {
    test(`${method} ${path} → verb ${JSON.stringify(verb)}, subresource(s) ${subresources.join(",")}`, () => {
      const attrs = requestAttributes(method, path, "node-1");
      expect(attrs.map((a) => a.subresource)).toEqual(subresources);
      for (const a of attrs) expect(a).toEqual({ verb, resource: "nodes", subresource: a.subresource, name: "node-1", apiVersion: "v1", path });
    });
  }
});
