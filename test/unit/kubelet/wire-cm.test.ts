// The container manager wiring's start-up check: the systemd driver refused where systemd is not
// the init system.
import { expect, test } from "bun:test";
import { checkCgroupDriver } from "../../../src/kubelet/wire-cm.ts";
import type { BunletConfig } from "../../../src/config/index.ts";

test("the systemd driver without systemd as PID 1 is refused with one line; cgroupfs, or systemd where it runs, is not", () => {
  const config = (c: Partial<BunletConfig>) => ({ cgroupDriver: "cgroupfs", cgroupsPerQOS: true, ...c }) as BunletConfig;
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), false)).toThrow(
    'bunlet: cgroupDriver "systemd" needs systemd as the init system, and /run/systemd/system does not exist here; use --cgroup-driver=cgroupfs',
  );
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), true)).not.toThrow();
  expect(() => checkCgroupDriver(config({}), false)).not.toThrow();
});
