// Where the controllers are (mountinfo of a hybrid v1 host, a v2 host, combined v1 mounts) and
// what each value becomes in the files of v1 and v2, written into a temporary directory laid
// out as the hierarchies are.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCgroupFs } from "../../../src/cm/cgroupfs.ts";
import { cgroupSubsystems, hugePageSizesFrom, hugePageUnit } from "../../../src/cm/subsystems.ts";

const Mi = 1024n * 1024n;
const hybrid = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
  "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
  "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");

describe("GetCgroupSubsystems", () => {
  test("a hybrid host is v1: each controller at its mount, the empty cgroup2 ignored", () => {
    const s = cgroupSubsystems({ mountinfo: hybrid, rootControllers: () => "", hugePageDirs: ["hugepages-2048kB"] });
    expect(s.version).toBe(1);
    expect([...s.mountPoints]).toEqual([
      ["cpu", "/sys/fs/cgroup/cpu"],
      ["cpuacct", "/sys/fs/cgroup/cpuacct"],
      ["memory", "/sys/fs/cgroup/memory"],
      ["pids", "/sys/fs/cgroup/pids"],
      ["name=systemd", "/sys/fs/cgroup/systemd"],
      // runc's cgroups in the hybrid cgroup2 are bunlet's to make and remove too.
      ["", "/sys/fs/cgroup/unified"],
    ]);
    // No hugetlb hierarchy here: no hugepage sizes to limit.
    expect(s.hugePageSizes).toEqual([]);
  });

  test("combined v1 mounts (cpu,cpuacct) serve both controllers", () => {
    const s = cgroupSubsystems({ mountinfo: "30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct", rootControllers: () => "", hugePageDirs: [] });
    expect(s.mountPoints.get("cpu")).toBe("/sys/fs/cgroup/cpu,cpuacct");
    expect(s.mountPoints.get("cpuacct")).toBe("/sys/fs/cgroup/cpu,cpuacct");
  });

  test("cgroup2 at /sys/fs/cgroup is v2, with the root's controllers", () => {
    const s = cgroupSubsystems({
      mountinfo: "30 25 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate",
      rootControllers: () => "cpuset cpu io memory hugetlb pids\n",
      hugePageDirs: ["hugepages-1048576kB", "hugepages-2048kB"],
    });
    expect(s.version).toBe(2);
    expect([...s.mountPoints.keys()]).toEqual(["cpuset", "cpu", "io", "memory", "hugetlb", "pids"]);
    expect(s.hugePageSizes).toEqual([2n * Mi, 1024n * Mi]);
  });

  test("hugepage sizes and their file names", () => {
    expect(hugePageSizesFrom(["hugepages-2048kB", "x"])).toEqual([2n * Mi]);
    expect(hugePageUnit(2n * Mi)).toBe("2MB");
    expect(hugePageUnit(1024n * Mi)).toBe("1GB");
  });
});

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const read = (...p: string[]) => readFileSync(join(dir, ...p), "utf8");

describe("v1 files", () => {
  function v1() {
    dir = mkdtempSync(join(tmpdir(), "bunlet-cm-unit-"));
    const mounts = new Map(["cpu", "cpuacct", "cpuset", "memory", "pids", "hugetlb"].map((s) => [s, join(dir, s)]));
    for (const m of mounts.values()) mkdirSync(m);
    writeFileSync(join(dir, "cpuset", "cpuset.cpus"), "0-1");
    writeFileSync(join(dir, "cpuset", "cpuset.mems"), "0");
    return createCgroupFs({ version: 1, mountPoints: mounts, hugePageSizes: [2n * Mi] });
  }

  test("create makes the cgroup in every hierarchy, copies cpuset down, and writes shares, CFS, memory, pids, hugetlb", () => {
    const fs = v1();
    // A real cpuset cgroup starts with empty cpus and mems; the temporary one has no files at all.
    const precreate = (p: string) => {
      mkdirSync(join(dir, "cpuset", p), { recursive: true });
      writeFileSync(join(dir, "cpuset", p, "cpuset.cpus"), "");
      writeFileSync(join(dir, "cpuset", p, "cpuset.mems"), "");
    };
    precreate("kubepods");
    fs.create("/kubepods", {});
    expect(read("cpuset", "kubepods", "cpuset.cpus")).toBe("0-1");
    expect(fs.exists("/kubepods")).toBe(true);
    expect(fs.exists("/kubepods/burstable")).toBe(false);
    fs.create("/kubepods/pod1", { cpuShares: 204n, cpuQuota: 50_000n, cpuPeriod: 100_000n, memory: 300n * Mi, pidsLimit: 100n, hugePageLimit: new Map([[2n * Mi, 0n]]) });
    expect(read("cpu", "kubepods", "pod1", "cpu.shares")).toBe("204");
    expect(read("cpu", "kubepods", "pod1", "cpu.cfs_period_us")).toBe("100000");
    expect(read("cpu", "kubepods", "pod1", "cpu.cfs_quota_us")).toBe("50000");
    expect(read("memory", "kubepods", "pod1", "memory.limit_in_bytes")).toBe(String(300n * Mi));
    expect(read("pids", "kubepods", "pod1", "pids.max")).toBe("100");
    expect(read("hugetlb", "kubepods", "pod1", "hugetlb.2MB.limit_in_bytes")).toBe("0");
    expect(fs.children("/kubepods")).toEqual(["pod1"]);
  });

  test("unset values are left alone; no pids limit is max", () => {
    const fs = v1();
    fs.create("/x", { pidsLimit: -1n });
    expect(read("pids", "x", "pids.max")).toBe("max");
    expect(() => read("cpu", "x", "cpu.shares")).toThrow();
    expect(() => read("memory", "x", "memory.limit_in_bytes")).toThrow();
  });
});

describe("v2 files", () => {
  test("controllers are enabled down the path; weight, cpu.max, memory.max, pids.max", () => {
    dir = mkdtempSync(join(tmpdir(), "bunlet-cm-unit-"));
    writeFileSync(join(dir, "cgroup.controllers"), "cpu memory pids hugetlb");
    writeFileSync(join(dir, "cgroup.subtree_control"), "");
    const fs = createCgroupFs({ version: 2, unifiedRoot: dir, mountPoints: new Map([["hugetlb", dir]]), hugePageSizes: [2n * Mi] });
    fs.create("/kubepods", { cpuShares: 1024n, memory: 8n * 1024n * Mi, pidsLimit: 4096n });
    expect(read("cgroup.subtree_control")).toBe("+cpu +memory +pids +hugetlb");
    expect(read("kubepods", "cpu.weight")).toBe("39");
    expect(read("kubepods", "memory.max")).toBe(String(8n * 1024n * Mi));
    expect(read("kubepods", "pids.max")).toBe("4096");
    fs.set("/kubepods", { cpuQuota: 50_000n, cpuPeriod: 100_000n, hugePageLimit: new Map([[2n * Mi, 4n * Mi]]) });
    expect(read("kubepods", "cpu.max")).toBe("50000 100000");
    expect(read("kubepods", "hugetlb.2MB.max")).toBe(String(4n * Mi));
    fs.set("/kubepods", { cpuQuota: -1n, cpuPeriod: 100_000n });
    expect(read("kubepods", "cpu.max")).toBe("max 100000");
  });
});
