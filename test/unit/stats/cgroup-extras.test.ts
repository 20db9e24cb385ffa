import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cadvisorMetrics } from "../../../src/stats/cadvisor-metrics.ts";
import { cgroupExtras, weightToShares } from "../../../src/stats/cgroup-extras.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "cg-extras-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test("v2: CPU split and throttling with a quota, memory details, the spec (weight as shares, max as 0)", async () => {
  const root = tree({
    "k8s.io/c/cpu.stat": "usage_usec 3000\nuser_usec 2000\nsystem_usec 1000\nnr_periods 50\nnr_throttled 7\nthrottled_usec 250000\n",
    "k8s.io/c/cpu.max": "20000 100000\n",
    "k8s.io/c/cpu.weight": "79\n",
    "k8s.io/c/memory.stat": "anon 10\nfile 4096\nfile_mapped 512\n",
    "k8s.io/c/memory.swap.current": "8192\n",
    "k8s.io/c/memory.events": "low 0\nhigh 0\nmax 3\noom 0\n",
    "k8s.io/c/memory.max": "max\n",
    "k8s.io/u/cpu.stat": "usage_usec 1\nuser_usec 1\nsystem_usec 0\n",
    "k8s.io/u/cpu.max": "max 100000\n",
    "k8s.io/u/memory.max": "67108864\n",
  });
  expect(await cgroupExtras("/k8s.io/c", root)).toEqual({
    cpu: { userNs: 2_000_000n, systemNs: 1_000_000n },
    cfs: { periods: 50n, throttledPeriods: 7n, throttledNs: 250_000_000n },
    memory: { cache: 4096n, mappedFile: 512n, swap: 8192n, failcnt: 3n, maxUsage: undefined },
    // runc wrote shares 2048 as weight 79; back to shares it is 2046 (integer steps), as cAdvisor shows it.
    spec: { cpuShares: 2046n, cpuQuota: 20000n, cpuPeriod: 100000n, memoryLimit: 0n },
  });
  // No quota: no CFS figures and no period or quota in the spec.
  const unlimited = await cgroupExtras("/k8s.io/u", root);
  expect(unlimited?.cfs).toBeUndefined();
  expect(unlimited?.spec).toEqual({ cpuShares: 2597n, memoryLimit: 67108864n });
  expect(await cgroupExtras("/k8s.io/gone", root)).toBeUndefined();
});

test("v1: cpuacct.stat ticks, cpu.stat throttling, memory.stat totals, limits above 2^62 as 0", async () => {
  const root = tree({
    "cpuacct/k8s.io/c/cpuacct.stat": "user 150\nsystem 25\n",
    "cpu/k8s.io/c/cpu.stat": "nr_periods 10\nnr_throttled 4\nthrottled_time 123456789\n",
    "cpu/k8s.io/c/cpu.cfs_quota_us": "50000\n",
    "cpu/k8s.io/c/cpu.cfs_period_us": "100000\n",
    "cpu/k8s.io/c/cpu.shares": "512\n",
    "memory/k8s.io/c/memory.stat": "cache 1\ntotal_cache 2048\ntotal_mapped_file 1024\ntotal_swap 0\n",
    "memory/k8s.io/c/memory.failcnt": "5\n",
    "memory/k8s.io/c/memory.max_usage_in_bytes": "99999\n",
    "memory/k8s.io/c/memory.limit_in_bytes": "9223372036854771712\n",
  });
  expect(await cgroupExtras("/k8s.io/c", root)).toEqual({
    cpu: { userNs: 1_500_000_000n, systemNs: 250_000_000n },
    cfs: { periods: 10n, throttledPeriods: 4n, throttledNs: 123456789n },
    memory: { cache: 2048n, mappedFile: 1024n, swap: 0n, failcnt: 5n, maxUsage: 99999n },
    spec: { cpuShares: 512n, cpuQuota: 50000n, cpuPeriod: 100000n, memoryLimit: 0n },
  });
});

test("cpu.weight back to shares as cAdvisor converts it", () => {
  expect([1n, 39n, 79n, 100n, 10000n].map(weightToShares)).toEqual([2n, 998n, 2046n, 2597n, 262144n]);
});

test("the families in cAdvisor's words, the spec without a timestamp", () => {
  const labels = { container: "c", id: "/k8s.io/c", image: "i", name: "c", namespace: "ns", pod: "p" };
  const text = cadvisorMetrics({
    nowMs: 1000,
    error: false,
    containers: [
      {
        labels,
        creationMs: 1,
        startMs: 1,
        extras: {
          timeMs: 900,
          cpu: { userNs: 2_000_000_000n, systemNs: 500_000_000n },
          cfs: { periods: 50n, throttledPeriods: 7n, throttledNs: 250_000_000n },
          memory: { cache: 4096n, mappedFile: 512n, failcnt: 3n },
          spec: { cpuShares: 2048n, cpuQuota: 20000n, cpuPeriod: 100000n, memoryLimit: 0n },
        },
      },
    ],
  });
  const l = 'container="c",id="/k8s.io/c",image="i",name="c",namespace="ns",pod="p"';
  for (const line of [
    "# HELP container_cpu_cfs_throttled_periods_total Number of throttled period intervals.",
    "# TYPE container_cpu_cfs_throttled_periods_total counter",
    `container_cpu_cfs_throttled_periods_total{${l}} 7 900`,
    `container_cpu_cfs_throttled_seconds_total{${l}} 0.25 900`,
    `container_cpu_user_seconds_total{${l}} 2 900`,
    `container_cpu_system_seconds_total{${l}} 0.5 900`,
    `container_memory_cache{${l}} 4096 900`,
    `container_memory_failcnt{${l}} 3 900`,
    `container_spec_cpu_quota{${l}} 20000`,
    `container_spec_cpu_shares{${l}} 2048`,
    `container_spec_memory_limit_bytes{${l}} 0`,
  ]) {
    expect(text).toContain(`${line}\n`);
  }
  // Not read: no series.
  expect(text).not.toContain("container_memory_swap{");
});
