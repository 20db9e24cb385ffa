// bunlet's own cgroup as the kubelet's getContainer finds it (the "kubelet" system container), and
// the system containers /stats/summary lists.
import { expect, test } from "bun:test";
import { ownCgroup, systemContainers } from "../../../src/cm/system-containers.ts";

test("v1: the cpu cgroup when memory's is the same one, else none (the kubelet's 'not unified')", () => {
  expect(ownCgroup("4:memory:/system.slice/bunlet.service\n2:cpu,cpuacct:/system.slice/bunlet.service\n1:name=systemd:/x\n", 1)).toBe("/system.slice/bunlet.service");
  expect(ownCgroup("4:memory:/process_api/abc\n1:cpu:/\n", 1)).toBeUndefined();
});

test("v2: the unified cgroup", () => {
  expect(ownCgroup("0::/system.slice/bunlet.service\n", 2)).toBe("/system.slice/bunlet.service");
});

test("kubelet (the flag, else its own cgroup), runtime and misc when given, and pods always", () => {
  const none = { kubeletCgroups: "", runtimeCgroups: "", systemCgroups: "" };
  expect(systemContainers(none, "/kubepods", 5, 2, "0::/system.slice/bunlet.service\n")).toEqual([
    { name: "kubelet", cgroup: "/system.slice/bunlet.service", startTimeMs: 5 },
    { name: "pods", cgroup: "/kubepods" },
  ]);
  expect(systemContainers({ kubeletCgroups: "/k", runtimeCgroups: "/r", systemCgroups: "/s" }, "/kubepods", 5, 2, "0::/own\n")).toEqual([
    { name: "kubelet", cgroup: "/k", startTimeMs: 5 },
    { name: "runtime", cgroup: "/r" },
    { name: "misc", cgroup: "/s" },
    { name: "pods", cgroup: "/kubepods" },
  ]);
  expect(systemContainers(none, "/kubepods", 5, 1, "4:memory:/a\n1:cpu:/b\n")).toEqual([{ name: "pods", cgroup: "/kubepods" }]);
});
