import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cadvisorMetrics } from "../../../src/stats/cadvisor-metrics.ts";
import { cgroupName, cgroupStats, parseNetDev, statField } from "../../../src/stats/cgroup.ts";
import { deviceOf, parseMountinfo } from "../../../src/stats/mounts.ts";

describe("cAdvisor's view of cgroups", () => {
  test("a cgroupsPath as cAdvisor names the cgroup: paths as they are, systemd slices expanded", () => {
    expect(cgroupName("/k8s.io/abc")).toBe("/k8s.io/abc");
    expect(cgroupName("kubepods/besteffort/pod1/abc")).toBe("/kubepods/besteffort/pod1/abc");
    expect(cgroupName("kubepods-besteffort-pod1_2.slice:cri-containerd:abc")).toBe(
      "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1_2.slice/cri-containerd-abc.scope",
    );
    expect(cgroupName("system.slice:cri-containerd:abc")).toBe("/system.slice/cri-containerd-abc.scope");
  });

  test("cgroup v2 and v1: CPU in ns, usage, working set without inactive file, rss", async () => {
    const root = mkdtempSync(join(tmpdir(), "cg-"));
    mkdirSync(join(root, "v2/pod"), { recursive: true });
    writeFileSync(join(root, "v2/pod/cpu.stat"), "usage_usec 1500\nuser_usec 1000\n");
    writeFileSync(join(root, "v2/pod/memory.current"), "10000\n");
    writeFileSync(join(root, "v2/pod/memory.stat"), "anon 3000\nfile 5000\ninactive_file 4000\n");
    expect(await cgroupStats("/pod", join(root, "v2"))).toEqual({ usageCoreNanoSeconds: 1_500_000n, usageBytes: 10000n, workingSetBytes: 6000n, rssBytes: 3000n });
    mkdirSync(join(root, "v1/cpuacct/k8s.io/c"), { recursive: true });
    mkdirSync(join(root, "v1/memory/k8s.io/c"), { recursive: true });
    writeFileSync(join(root, "v1/cpuacct/k8s.io/c/cpuacct.usage"), "777\n");
    writeFileSync(join(root, "v1/memory/k8s.io/c/memory.usage_in_bytes"), "100\n");
    writeFileSync(join(root, "v1/memory/k8s.io/c/memory.stat"), "rss 1\ntotal_rss 40\ntotal_inactive_file 200\n");
    expect(await cgroupStats("/k8s.io/c", join(root, "v1"))).toEqual({ usageCoreNanoSeconds: 777n, usageBytes: 100n, workingSetBytes: 0n, rssBytes: 40n });
    expect(await cgroupStats("/gone", join(root, "v1"))).toBeUndefined();
  });

  test("one field of a flat-keyed cgroup file: first, middle and last lines, whole names only, numbers only", () => {
    const stat = "cache 4096\nrss 10\nmapped_file 512\ntotal_rss 40\ntotal_inactive_file 200\nhierarchical_memory_limit max\nlast 7";
    const cases: [key: string, want: bigint | undefined][] = [
      ["cache", 4096n],
      ["rss", 10n],
      ["total_rss", 40n],
      ["total_inactive_file", 200n],
      ["last", 7n],
      // A name that is only the end or the start of another is not that field.
      ["inactive_file", undefined],
      ["total", undefined],
      ["mapped", undefined],
      ["hierarchical_memory_limit", undefined],
      ["gone", undefined],
    ];
    for (const [key, want] of cases) expect([key, statField(stat, key)]).toEqual([key, want]);
    expect(statField(undefined, "rss")).toBeUndefined();
    expect(statField("", "rss")).toBeUndefined();
    expect(statField("rss 5\n", "rss")).toBe(5n);
  });

  test("/proc/<pid>/net/dev: the pod's interfaces without loopback", () => {
    const text = [
      "Inter-|   Receive                                                |  Transmit",
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
      "    lo:     100       1    0    0    0     0          0         0      100       1    0    0    0     0       0          0",
      "  eth0:    5000      50    1    2    0     0          0         0     3000      30    3    4    0     0       0          0",
    ].join("\n");
    expect(parseNetDev(text)).toEqual([
      { name: "eth0", rxBytes: 5000n, rxPackets: 50n, rxErrors: 1n, rxDropped: 2n, txBytes: 3000n, txPackets: 30n, txErrors: 3n, txDropped: 4n },
    ]);
  });

  test("the device of a path is the source of the longest mountpoint holding it", () => {
    const mounts = parseMountinfo(
      ["22 1 8:1 / / rw - ext4 /dev/vda1 rw", "30 22 0:5 / /var/lib/containerd rw - xfs /dev/vdb rw", "31 22 0:6 / /var/lib/containerdx rw - tmpfs tmpfs rw"].join("\n"),
    );
    expect(deviceOf(mounts, "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs")).toBe("/dev/vdb");
    expect(deviceOf(mounts, "/var/lib/containerdx/a")).toBe("tmpfs");
    expect(deviceOf(mounts, "/etc")).toBe("/dev/vda1");
  });
});

test("/metrics/cadvisor: cAdvisor's families, help texts and labels, the pod and sandbox series with container=\"\"", () => {
  const pod = { pod: "web", namespace: "default" };
  const text = cadvisorMetrics({
    nowMs: 1_700_000_000_500,
    error: false,
    containers: [
      {
        labels: { container: "app", id: "/k8s.io/c1", image: "docker.io/library/busybox:1.36", name: "c1", ...pod },
        creationMs: 1_700_000_000_900,
        startMs: 1_700_000_000_900,
        cpu: { timeMs: 1_700_000_000_400, usageCoreNanoSeconds: 250_000_000n },
        memory: { timeMs: 1_700_000_000_400, usageBytes: 9000n, workingSetBytes: 8000n, rssBytes: 7000n },
        fs: [{ timeMs: 1_700_000_000_400, device: "/dev/vdb", usedBytes: 4096n }],
      },
      {
        labels: { container: "", id: "/k8s.io/s1", image: "registry.k8s.io/pause:3.10", name: "s1", ...pod },
        creationMs: 1_700_000_000_000,
        startMs: 1_700_000_000_000,
        network: { timeMs: 1_700_000_000_500, interfaces: [{ name: "eth0", rxBytes: 5000n, rxPackets: 1n, rxErrors: 0n, rxDropped: 0n, txBytes: 3000n, txPackets: 1n, txErrors: 0n, txDropped: 0n }] },
      },
    ],
    machine: { timeMs: 1_700_000_000_000, numCores: 2, memoryBytes: 4_000_000_000n, machineId: "m", systemUuid: "u", bootId: "b" },
  });
  const c1 = 'container="app",id="/k8s.io/c1",image="docker.io/library/busybox:1.36",name="c1",namespace="default",pod="web"';
  const s1 = 'container="",id="/k8s.io/s1",image="registry.k8s.io/pause:3.10",name="s1",namespace="default",pod="web"';
  const lines = text.split("\n");
  expect(lines).toContain("# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds.");
  expect(lines).toContain("# TYPE container_cpu_usage_seconds_total counter");
  expect(lines).toContain(`container_cpu_usage_seconds_total{${c1.replace("id=", 'cpu="total",id=')}} 0.25 1700000000400`);
  expect(lines).toContain(`container_memory_working_set_bytes{${c1}} 8000 1700000000400`);
  expect(lines).toContain(`container_memory_usage_bytes{${c1}} 9000 1700000000400`);
  expect(lines).toContain(`container_memory_rss{${c1}} 7000 1700000000400`);
  expect(lines).toContain(`container_fs_usage_bytes{${c1.replace("id=", 'device="/dev/vdb",id=')}} 4096 1700000000400`);
  expect(lines).toContain(`container_start_time_seconds{${c1}} 1.7e+09`);
  expect(lines).toContain(`container_last_seen{${s1}} 1.7e+09 1700000000500`);
  expect(lines).toContain(`container_network_receive_bytes_total{container="",id="/k8s.io/s1",image="registry.k8s.io/pause:3.10",interface="eth0",name="s1",namespace="default",pod="web"} 5000 1700000000500`);
  expect(lines).toContain(`container_network_transmit_bytes_total{container="",id="/k8s.io/s1",image="registry.k8s.io/pause:3.10",interface="eth0",name="s1",namespace="default",pod="web"} 3000 1700000000500`);
  expect(lines).toContain('machine_cpu_cores{boot_id="b",machine_id="m",system_uuid="u"} 2 1700000000000');
  expect(lines).toContain('machine_memory_bytes{boot_id="b",machine_id="m",system_uuid="u"} 4e+09 1700000000000');
  expect(lines).toContain("container_scrape_error 0");
  expect(lines).toContain("# HELP container_network_receive_bytes_total Cumulative count of bytes received");
});
