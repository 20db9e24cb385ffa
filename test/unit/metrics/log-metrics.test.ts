import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { registerLogMetrics, type ContainerLogUsage } from "../../../src/metrics/log-metrics.ts";

test("each container's log usage per scrape; a failed read leaves the family empty and is reported", async () => {
  const registry = new Registry();
  let usage: ContainerLogUsage[] | Error = [{ uid: "u1", namespace: "ns", pod: "p", container: "c", usedBytes: 4096n }];
  const errors: unknown[] = [];
  registerLogMetrics(registry, async () => {
    if (usage instanceof Error) throw usage;
    return usage;
  }, (err) => errors.push(err));
  expect(await registry.metrics()).toContain('kubelet_container_log_filesystem_used_bytes{uid="u1",namespace="ns",pod="p",container="c"} 4096\n');
  usage = new Error("stats unavailable");
  expect(await registry.metrics()).not.toContain("kubelet_container_log_filesystem_used_bytes{");
  expect(errors).toHaveLength(1);
});
