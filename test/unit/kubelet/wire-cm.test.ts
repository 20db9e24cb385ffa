// The container manager wiring's pure parts: bunlet's own cgroup as the kubelet's getContainer
// finds it (the "kubelet" system container), and the systemd driver refused where systemd is
// not the init system.
import { expect, test } from "bun:test";
import { checkCgroupDriver, ownCgroup } from "../../../src/kubelet/wire-cm.ts";
import type { BunletConfig } from "../../../src/config/index.ts";

test("v1: the cpu cgroup when memory's is the same one, else none (the kubelet's 'not unified')", () => {
  expect(ownCgroup("4:memory:/system.slice/bunlet.service\n2:cpu,cpuacct:/system.slice/bunlet.service\n1:name=systemd:/x\n", 1)).toBe("/system.slice/bunlet.service");
  expect(ownCgroup("4:memory:/process_api/abc\n1:cpu:/\n", 1)).toBeUndefined();
});

test("v2: the unified cgroup", () => {
  expect(ownCgroup("0::/system.slice/bunlet.service\n", 2)).toBe("/system.slice/bunlet.service");
});

test("the systemd driver without systemd as PID 1 is refused with one line; cgroupfs, or systemd where it runs, is not", () => {
  const config = (c: Partial<BunletConfig>) => ({ cgroupDriver: "cgroupfs", cgroupsPerQOS: true, ...c }) as BunletConfig;
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), false)).toThrow(
    'bunlet: cgroupDriver "systemd" needs systemd as the init system, and /run/systemd/system does not exist here; use --cgroup-driver=cgroupfs',
  );
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), true)).not.toThrow();
  expect(() => checkCgroupDriver(config({}), false)).not.toThrow();
});
