// The settings judged whole before anything starts: the systemd driver refused where systemd is
// not the init system, and eviction thresholds parsed as the kubelet parses them, a bad one
// refused with one line (exit 2, as a bad flag).
import { expect, test } from "bun:test";
import { checkCgroupDriver, evictionThresholds } from "../../../src/boot/settings.ts";
import { ConfigError, parseArgs, type BunletConfig } from "../../../src/config/index.ts";

const flags = (...argv: string[]) => {
  const parsed = parseArgs(argv);
  if (parsed.kind !== "run") throw new Error(`flags ${argv.join(" ")} did not parse to a run`);
  return parsed.config;
};

test("the systemd driver without systemd as PID 1 is refused with one line; cgroupfs, or systemd where it runs, is not", () => {
  const config = (c: Partial<BunletConfig>) => ({ cgroupDriver: "cgroupfs", cgroupsPerQOS: true, ...c }) as BunletConfig;
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), false)).toThrow(
    'bunlet: cgroupDriver "systemd" needs systemd as the init system, and /run/systemd/system does not exist here; use --cgroup-driver=cgroupfs',
  );
  expect(() => checkCgroupDriver(config({ cgroupDriver: "systemd" }), true)).not.toThrow();
  expect(() => checkCgroupDriver(config({}), false)).not.toThrow();
});

test("the eviction thresholds of the flags are parsed; the hard memory one also holds kubepods (enforceNodeAllocatable pods)", () => {
  const thresholds = evictionThresholds(flags("--eviction-hard=memory.available<300Mi", "--eviction-soft=nodefs.available<20%", "--eviction-soft-grace-period=nodefs.available=1m"));
  expect(thresholds.map((t) => [t.signal, t.hard, t.gracePeriodMs])).toEqual([
    ["memory.available", true, 0],
    ["nodefs.available", false, 60_000],
    ["allocatableMemory.available", true, 0],
  ]);
});

test("a soft threshold without its grace period is a ConfigError of one line naming evictionHard's settings", () => {
  let thrown: unknown;
  try {
    evictionThresholds(flags("--eviction-soft=nodefs.available<20%"));
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect((thrown as Error).message).toBe("bunlet: eviction thresholds: grace period must be specified for the soft eviction threshold nodefs.available");
});
