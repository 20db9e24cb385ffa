// The container manager on this host's real cgroupfs (root only), under a cgroup root of its own
// removed afterwards: kubepods and the tiers exist in every hierarchy with their values, a pod
// cgroup gets the pod's values and accepts a task (cpuset copied down), a busy one is kept and
// retried, and removal leaves nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cgroupSubsystems, createCgroupFs, createContainerManager } from "../../../src/cm/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { cgroupMounts, ensureTestCgroupRoot, removeTestCgroupRoot } from "../../harness/cgroups.ts";
import { makePod } from "../../fixtures/pods.ts";

const root = `/bunlet-e2e-cm-integration-${process.pid}`;
const isRoot = process.getuid?.() === 0;
const subsystems = cgroupSubsystems({ mountinfo: readFileSync("/proc/self/mountinfo", "utf8"), rootControllers: () => (existsSync("/sys/fs/cgroup/cgroup.controllers") ? readFileSync("/sys/fs/cgroup/cgroup.controllers", "utf8") : ""), hugePageDirs: [] });
const fs = createCgroupFs(subsystems);
const cm = createContainerManager(
  { fs, log: silentLogger },
  { driver: "cgroupfs", cgroupsPerQOS: true, cgroupRoot: root, enforceCPULimits: true, cpuPeriodUs: 100_000n, podPidsLimit: 64n, hugePageSizes: [] },
);
const pod = makePod({
  name: "p",
  namespace: "default",
  metadata: { uid: "0f1c-22" },
  spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "250m", memory: "32Mi" }, limits: { cpu: "500m", memory: "64Mi" } } }] },
});
const file = (...p: string[]) => {
  const mount = subsystems.version === 2 ? "/sys/fs/cgroup" : (subsystems.mountPoints.get(p[0]!) ?? "");
  return readFileSync(join(mount, root, ...p.slice(1)), "utf8").trim();
};

beforeAll(() => {
  if (isRoot) ensureTestCgroupRoot(root);
});
afterAll(async () => {
  if (isRoot) await removeTestCgroupRoot(root);
});

describe.skipIf(!isRoot)("on this host's cgroups", () => {
  test("kubepods and the QoS tiers, in every hierarchy", () => {
    cm.start({ cpuShares: 1024n, memory: 512n * 1024n * 1024n, pidsLimit: 1000n }, [], 0n);
    for (const mount of cgroupMounts()) for (const d of ["kubepods", "kubepods/burstable", "kubepods/besteffort"]) expect(existsSync(join(mount, root, d))).toBe(true);
    if (subsystems.version === 1) {
      expect(file("memory", "kubepods", "memory.limit_in_bytes")).toBe(String(512 * 1024 * 1024));
      expect(file("cpu", "kubepods", "cpu.shares")).toBe("1024");
      expect(file("cpu", "kubepods", "besteffort", "cpu.shares")).toBe("2");
    }
  });

  test("a pod cgroup with the pod's values, that a task can join; busy, it stays and is retried until it goes", async () => {
    cm.ensurePodCgroup(pod, [pod]);
    const dir = ["kubepods", "burstable", "pod0f1c-22"];
    if (subsystems.version === 1) {
      expect(file("cpu", ...dir, "cpu.shares")).toBe("256");
      expect(file("cpu", ...dir, "cpu.cfs_quota_us")).toBe("50000");
      expect(file("memory", ...dir, "memory.limit_in_bytes")).toBe(String(64 * 1024 * 1024));
      expect(file("pids", ...dir, "pids.max")).toBe("64");
      expect(file("cpuset", ...dir, "cpuset.cpus")).not.toBe("");
      expect(file("cpu", "kubepods", "burstable", "cpu.shares")).toBe("256");
    }
    const sleeper = Bun.spawn(["sleep", "60"]);
    for (const d of fs.dirs(cm.podCgroupPath(pod)!)) writeFileSync(join(d, "cgroup.procs"), String(sleeper.pid));
    cm.destroyPodCgroup(pod);
    expect(cm.podCgroupExists(pod)).toBe(true);
    sleeper.kill("SIGKILL");
    await sleeper.exited;
    // Housekeeping with the pod no longer wanted: the retry removes it everywhere.
    cm.cleanupOrphanedPodCgroups(new Set());
    expect(cm.podCgroupExists(pod)).toBe(false);
    for (const mount of cgroupMounts()) expect(existsSync(join(mount, root, ...dir))).toBe(false);
  });
});
