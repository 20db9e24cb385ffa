// /stats/summary from the container manager's cgroups: a pod's CPU and memory are its pod
// cgroup's (pause included), and the system containers (kubelet, pods, ...) are read from theirs,
// with availableBytes under a limit as cadvisor gives it. Read from a v1 layout in a temp dir.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CpuUsageCache } from "../../../src/stats/cpu-usage.ts";
import { podStatsFromCgroups, systemContainerStats } from "../../../src/stats/pod-cgroups.ts";
import type { PodStats } from "../../../src/stats/types.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

const root = mkdtempSync(join(tmpdir(), "bunlet-stats-cg-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cgroup(name: string, cpuNs: bigint, usage: bigint, inactiveFile: bigint, limit: string) {
  mkdirSync(join(root, "cpuacct", name), { recursive: true });
  mkdirSync(join(root, "memory", name), { recursive: true });
  writeFileSync(join(root, "cpuacct", name, "cpuacct.usage"), `${cpuNs}\n`);
  writeFileSync(join(root, "memory", name, "memory.usage_in_bytes"), `${usage}\n`);
  writeFileSync(join(root, "memory", name, "memory.stat"), `total_rss ${usage / 2n}\ntotal_inactive_file ${inactiveFile}\n`);
  writeFileSync(join(root, "memory", name, "memory.limit_in_bytes"), `${limit}\n`);
}

test("a pod's CPU and memory come from its pod cgroup; a pod without one keeps the CRI's sums", async () => {
  cgroup("/kubepods/burstable/poda", 5_000_000_000n, 300n, 100n, "1000");
  const pods: PodStats[] = [
    { podRef: { name: "a", namespace: "default", uid: "a" }, startTime: "", containers: [], memory: { time: "", workingSetBytes: 1n } },
    { podRef: { name: "b", namespace: "default", uid: "b" }, startTime: "", containers: [], memory: { time: "", workingSetBytes: 7n } },
  ];
  const clock = new FakeClock(1_700_000_000_000);
  podStatsFromCgroups(pods, { podCgroups: () => new Map([["a", "/kubepods/burstable/poda"]]), systemContainers: () => [] }, new CpuUsageCache(clock), clock.now(), root);
  expect(pods[0]!.memory).toMatchObject({ availableBytes: 800n, usageBytes: 300n, workingSetBytes: 200n, rssBytes: 150n });
  expect(pods[0]!.cpu?.usageCoreNanoSeconds).toBe(5_000_000_000n);
  expect(pods[1]!.memory?.workingSetBytes).toBe(7n);
});

test("system containers: one entry per readable cgroup, no availableBytes without a limit", async () => {
  cgroup("/kubepods", 9n, 2000n, 0n, "9223372036854771712");
  cgroup("/system.slice/bunlet.service", 1n, 50n, 0n, "9223372036854771712");
  const clock = new FakeClock(1_700_000_000_000);
  const stats = systemContainerStats(
    {
      podCgroups: () => new Map(),
      systemContainers: () => [
        { name: "kubelet", cgroup: "/system.slice/bunlet.service", startTimeMs: 1_600_000_000_000 },
        { name: "runtime", cgroup: "/gone" },
        { name: "pods", cgroup: "/kubepods" },
      ],
    },
    new CpuUsageCache(clock),
    clock.now(),
    root,
  );
  expect(stats.map((s) => s.name)).toEqual(["kubelet", "pods"]);
  expect(stats[0]!.startTime).toBe("2020-09-13T12:26:40Z");
  expect(stats[1]!.memory).toEqual({ time: "2023-11-14T22:13:20Z", usageBytes: 2000n, workingSetBytes: 2000n, rssBytes: 1000n });
});
