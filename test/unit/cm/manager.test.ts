// The container manager's cgroup plan over a recording CgroupFs: where each pod's cgroup goes for
// each driver, what it gets, that an existing one is kept, that a busy one is retried and orphans
// are removed, and that without cgroupsPerQOS nothing is made.
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import { CgroupError, type CgroupFs } from "../../../src/cm/cgroupfs.ts";
import { createContainerManager, type ContainerManagerOptions } from "../../../src/cm/manager.ts";
import type { ResourceConfig } from "../../../src/cm/resource-config.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { makePod } from "../../fixtures/pods.ts";

class FakeFs implements CgroupFs {
  readonly version = 1 as const;
  readonly cgroups = new Map<string, ResourceConfig>([["/", {}]]);
  readonly calls: string[] = [];
  busy = new Set<string>();
  pidsIn = new Map<string, number[]>();
  exists = (path: string) => this.cgroups.has(path);
  create(path: string, rc: ResourceConfig) {
    this.calls.push(`create ${path}`);
    this.cgroups.set(path, { ...rc });
  }
  set(path: string, rc: ResourceConfig) {
    this.calls.push(`set ${path}`);
    this.cgroups.set(path, { ...this.cgroups.get(path), ...rc });
  }
  destroy(path: string) {
    if (this.busy.has(path)) throw new CgroupError(`failed to remove cgroup ${path}: EBUSY`, "EBUSY");
    this.calls.push(`destroy ${path}`);
    this.cgroups.delete(path);
  }
  children(path: string) {
    const prefix = path === "/" ? "/" : `${path}/`;
    return [...this.cgroups.keys()].filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes("/") && p !== path).map((p) => p.slice(prefix.length));
  }
  pids = (path: string) => this.pidsIn.get(path) ?? [];
  memoryUsage = () => 0n;
  dirs = (path: string) => [path];
  memoryDir = (path: string) => path;
  cpuAccountingDir = (path: string) => path;
}

const options: ContainerManagerOptions = {
  driver: "cgroupfs",
  cgroupsPerQOS: true,
  cgroupRoot: "/",
  enforceCPULimits: true,
  cpuPeriodUs: 100_000n,
  podPidsLimit: 1024n,
  hugePageSizes: [],
};
const Mi = 1024n * 1024n;

function pod(uid: string, requests?: Record<string, string>, limits?: Record<string, string>): Pod {
  const c: Container = { name: "c", image: "busybox", resources: { requests, limits } };
  return makePod({ name: uid, namespace: "default", metadata: { uid }, spec: { containers: [c] } });
}
const guaranteed = pod("g-1", { cpu: "500m", memory: "64Mi" }, { cpu: "500m", memory: "64Mi" });
const burstable = pod("b-1", { cpu: "250m" }, { cpu: "500m", memory: "128Mi" });
const besteffort = pod("e-1");

function started(opts: Partial<ContainerManagerOptions> = {}) {
  const fs = new FakeFs();
  const cm = createContainerManager({ fs, log: silentLogger }, { ...options, ...opts });
  cm.start({ cpuShares: 2048n, memory: 4096n * Mi }, [], 0n);
  return { fs, cm };
}

describe("the hierarchy", () => {
  test("start makes kubepods with the allocatable values, then the burstable and besteffort tiers", () => {
    const { fs } = started();
    expect(fs.calls.slice(0, 3)).toEqual(["create /kubepods", "create /kubepods/burstable", "create /kubepods/besteffort"]);
    expect(fs.cgroups.get("/kubepods")).toEqual({ cpuShares: 2048n, memory: 4096n * Mi });
    expect(fs.cgroups.get("/kubepods/besteffort")?.cpuShares).toBe(2n);
  });

  test("a cgroupRoot that does not exist is refused in the kubelet's words", () => {
    const fs = new FakeFs();
    const cm = createContainerManager({ fs, log: silentLogger }, { ...options, cgroupRoot: "/missing" });
    expect(() => cm.start({}, [], 0n)).toThrow('invalid configuration: cgroup-root "/missing" doesn\'t exist');
  });

  test("at a restart kubepods is updated, and the tiers and pod cgroups found are kept", () => {
    const { fs, cm } = started();
    cm.ensurePodCgroup(burstable, [burstable]);
    fs.calls.length = 0;
    const again = createContainerManager({ fs, log: silentLogger }, options);
    again.start({ cpuShares: 1024n }, [burstable], 0n);
    expect(fs.calls.filter((c) => c.startsWith("create") || c.startsWith("destroy"))).toEqual([]);
    expect(again.podCgroupExists(burstable)).toBe(true);
    expect(fs.cgroups.get("/kubepods/burstable")?.cpuShares).toBe(256n);
  });

  const parents: [string, Pod, string, string][] = [
    ["Guaranteed", guaranteed, "/kubepods/podg-1", "/kubepods.slice/kubepods-podg_1.slice"],
    ["Burstable", burstable, "/kubepods/burstable/podb-1", "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_1.slice"],
    ["BestEffort", besteffort, "/kubepods/besteffort/pode-1", "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pode_1.slice"],
  ];
  for (const [qos, p, cgroupfs, systemd] of parents) {
    test(`a ${qos} pod's cgroup_parent: ${cgroupfs} (cgroupfs), ${systemd} (systemd)`, () => {
      expect(started().cm.podCgroupParent(p)).toBe(cgroupfs);
      expect(started({ driver: "systemd" }).cm.podCgroupParent(p)).toBe(systemd);
    });
  }

  test("a custom cgroupRoot holds kubepods", () => {
    const fs = new FakeFs();
    fs.cgroups.set("/edge", {});
    const cm = createContainerManager({ fs, log: silentLogger }, { ...options, cgroupRoot: "/edge" });
    cm.start({}, [], 0n);
    expect(cm.podCgroupParent(burstable)).toBe("/edge/kubepods/burstable/podb-1");
    expect(cm.kubepodsPath()).toBe("/edge/kubepods");
  });

  test("without cgroupsPerQOS nothing is made and pods get the runtime's default", () => {
    const { fs, cm } = started({ cgroupsPerQOS: false });
    cm.ensurePodCgroup(burstable, [burstable]);
    expect(fs.calls).toEqual([]);
    expect(cm.podCgroupParent(burstable)).toBe("");
    expect(cm.kubepodsPath()).toBeUndefined();
  });
});

describe("pod cgroups", () => {
  test("EnsureExists creates the pod cgroup with the pod's values and the pids limit, after the tier counts the pod", () => {
    const { fs, cm } = started();
    fs.calls.length = 0;
    cm.ensurePodCgroup(burstable, [burstable]);
    expect(fs.calls).toEqual(["set /kubepods/burstable", "set /kubepods/besteffort", "create /kubepods/burstable/podb-1"]);
    expect(fs.cgroups.get("/kubepods/burstable")?.cpuShares).toBe(256n);
    expect(fs.cgroups.get("/kubepods/burstable/podb-1")).toEqual({ cpuShares: 256n, cpuQuota: 50_000n, cpuPeriod: 100_000n, memory: 128n * Mi, pidsLimit: 1024n, hugePageLimit: new Map() });
  });

  test("an existing pod cgroup is kept as it is (values change only through updatePodCgroup)", () => {
    const { fs, cm } = started();
    cm.ensurePodCgroup(guaranteed, [guaranteed]);
    fs.calls.length = 0;
    cm.ensurePodCgroup(guaranteed, [guaranteed]);
    expect(fs.calls).toEqual([]);
    cm.updatePodCgroup(guaranteed, { cpuQuota: 100_000n, memory: 128n * Mi });
    expect(fs.calls).toEqual(["set /kubepods/podg-1"]);
    expect(fs.cgroups.get("/kubepods/podg-1")).toMatchObject({ cpuShares: 512n, cpuQuota: 100_000n, memory: 128n * Mi });
  });

  test("a busy pod cgroup is not leaked: housekeeping retries it until it goes", () => {
    const { fs, cm } = started();
    cm.ensurePodCgroup(besteffort, [besteffort]);
    fs.busy.add("/kubepods/besteffort/pode-1");
    cm.destroyPodCgroup(besteffort);
    expect(fs.exists("/kubepods/besteffort/pode-1")).toBe(true);
    fs.busy.clear();
    cm.cleanupOrphanedPodCgroups(new Set());
    expect(fs.exists("/kubepods/besteffort/pode-1")).toBe(false);
  });

  test("orphaned pod cgroups go (their processes killed first); those of pods that may run stay", () => {
    const { cm } = started();
    for (const p of [guaranteed, burstable, besteffort]) cm.ensurePodCgroup(p, [p]);
    expect(cm.podCgroups()).toEqual(
      new Map([
        ["g-1", "/kubepods/podg-1"],
        ["b-1", "/kubepods/burstable/podb-1"],
        ["e-1", "/kubepods/besteffort/pode-1"],
      ]),
    );
    cm.cleanupOrphanedPodCgroups(new Set(["b-1"]));
    expect([...cm.podCgroups().keys()]).toEqual(["b-1"]);
  });

  test("the systemd driver finds pod slices by their escaped UID", () => {
    const fs = new FakeFs();
    const created: string[] = [];
    const cm = createContainerManager({ fs, log: silentLogger, creator: { create: (p) => void created.push(p), destroy: () => undefined } }, { ...options, driver: "systemd" });
    cm.start({}, [], 0n);
    cm.ensurePodCgroup(burstable, [burstable]);
    expect(created).toEqual([
      "/kubepods.slice",
      "/kubepods.slice/kubepods-burstable.slice",
      "/kubepods.slice/kubepods-besteffort.slice",
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_1.slice",
    ]);
    expect(cm.podCgroups()).toEqual(new Map([["b-1", "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_1.slice"]]));
  });
});
