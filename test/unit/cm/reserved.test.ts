// The reserved cgroups' enforcement (enforceExistingCgroup): only those enforceNodeAllocatable
// names, limited to the reservation (CPU only in the -compressible form), and the first failure
// returned in the kubelet's words with the flag that names the cgroup.
import { describe, expect, test } from "bun:test";
import { CgroupError } from "../../../src/cm/cgroupfs.ts";
import { enforceReservedCgroups } from "../../../src/cm/reserved.ts";
import type { ResourceConfig } from "../../../src/cm/resource-config.ts";

function fakeFs(existing: string[], failSet: Record<string, string> = {}) {
  const set: [string, ResourceConfig][] = [];
  return {
    set,
    fs: {
      exists: (path: string) => existing.includes(path),
      set(path: string, rc: ResourceConfig) {
        if (failSet[path]) throw new CgroupError(failSet[path]);
        set.push([path, rc]);
      },
    },
  };
}

const reserved = {
  system: { cgroup: "/system.slice", reserved: { cpu: "500m", memory: "1Gi" } },
  kube: { cgroup: "/kube.slice", reserved: { cpu: "250m", memory: "512Mi" } },
};

describe("reserved cgroups", () => {
  test("nothing is touched when enforceNodeAllocatable names only pods", () => {
    const f = fakeFs([]);
    expect(enforceReservedCgroups(f.fs, "cgroupfs", new Set(["pods"]), reserved)).toBeUndefined();
    expect(f.set).toEqual([]);
  });

  test("system-reserved and kube-reserved are limited to their reservations; the compressible form to CPU only", () => {
    const f = fakeFs(["/system.slice", "/kube.slice"]);
    expect(enforceReservedCgroups(f.fs, "cgroupfs", new Set(["pods", "system-reserved", "kube-reserved-compressible"]), reserved)).toBeUndefined();
    expect(f.set).toEqual([
      ["/system.slice", { cpuShares: 512n, memory: 1024n * 1024n * 1024n, hugePageLimit: new Map() }],
      ["/kube.slice", { cpuShares: 256n }],
    ]);
  });

  test("the systemd driver spells the cgroup as the slice's path", () => {
    const f = fakeFs(["/kube.slice/kube-reserved.slice"]);
    const kube = { cgroup: "kube-reserved.slice", reserved: { cpu: "250m" } };
    expect(enforceReservedCgroups(f.fs, "systemd", new Set(["kube-reserved-compressible"]), { ...reserved, kube })).toBeUndefined();
    expect(f.set.map(([path]) => path)).toEqual(["/kube.slice/kube-reserved.slice"]);
  });

  test("a missing cgroup is refused naming its flag, before the next one is touched", () => {
    const f = fakeFs(["/kube.slice"]);
    expect(enforceReservedCgroups(f.fs, "cgroupfs", new Set(["system-reserved", "kube-reserved"]), reserved)).toEqual({
      flag: "--system-reserved-cgroup",
      message: 'Failed to enforce System Reserved Cgroup Limits on "/system.slice": cgroup "/system.slice" does not exist',
    });
    expect(f.set).toEqual([]);
  });

  test("a cgroup that refuses its limits is reported with the cgroup error", () => {
    const f = fakeFs(["/kube.slice"], { "/kube.slice": "write memory.max: EBUSY" });
    expect(enforceReservedCgroups(f.fs, "cgroupfs", new Set(["kube-reserved-compressible"]), reserved)).toEqual({
      flag: "--kube-reserved-cgroup",
      message: 'Failed to enforce Kube Reserved Compressible Cgroup Limits on "/kube.slice": write memory.max: EBUSY',
    });
  });
});
