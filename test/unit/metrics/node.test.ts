// The node's own gauges: its name, the metrics provider, and the cgroup version the host's
// /sys/fs/cgroup shows.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMetrics } from "../../../src/metrics/index.ts";
import { setNodeMetrics } from "../../../src/metrics/node.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function gauges(unified: boolean): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "bunlet-cgroup-"));
  dirs.push(root);
  if (unified) writeFileSync(join(root, "cgroup.controllers"), "cpu memory pids\n");
  const metrics = createMetrics();
  setNodeMetrics(metrics, "edge-1", root);
  const text = await metrics.registry.metrics();
  return text.split("\n").filter((l) => /^kubelet_(node_name|cgroup_version|metrics_provider)\b/.test(l)).join("\n");
}

test("the node's name and the CRI metrics provider are 1; cgroup version 2 on the unified hierarchy", async () => {
  expect((await gauges(true)).split("\n").sort()).toEqual(["kubelet_cgroup_version 2", 'kubelet_metrics_provider{provider="cri"} 1', 'kubelet_node_name{node="edge-1"} 1']);
});

test("cgroup version 1 where /sys/fs/cgroup has no cgroup.controllers", async () => {
  expect(await gauges(false)).toContain("kubelet_cgroup_version 1");
});
