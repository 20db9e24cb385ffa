/**
 * The systemd cgroup driver's side that differs from cgroupfs: each cgroup is a transient slice
 * unit that systemd creates (StartTransientUnit over D-Bus, as libcontainer's systemd manager
 * does, here through busctl) and removes (StopUnit); the values are then written to the slice's
 * files like cgroupfs does. systemd must be the init system: where it is not (a container, this
 * kind of test host), the driver is refused at start with one line.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { CgroupCreator } from "./manager.ts";
import { CgroupError } from "./cgroupfs.ts";

/** sd_booted(): systemd is PID 1 when this directory exists. */
export function systemdBooted(runDir = "/run/systemd/system"): boolean {
  return existsSync(runDir);
}

export const SYSTEMD_NOT_RUNNING =
  'cgroupDriver "systemd" needs systemd as the init system, and /run/systemd/system does not exist here; use --cgroup-driver=cgroupfs';

const MANAGER = ["org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager"];
const BUSCTL_TIMEOUT_MS = 10_000;

function busctl(args: string[]): void {
  const r = spawnSync("busctl", ["--system", "call", ...MANAGER, ...args], { encoding: "utf8", timeout: BUSCTL_TIMEOUT_MS });
  if (r.error) throw new CgroupError(`busctl: ${r.error.message}`);
  if (r.status !== 0) throw new CgroupError(`busctl ${args[0]}: ${(r.stderr || r.stdout).trim()}`);
}

/** The slice unit of a cgroup path: its last component ("kubepods-burstable.slice"). */
const unitOf = (path: string) => path.split("/").filter((c) => c !== "").at(-1) ?? "-.slice";

/**
 * StartTransientUnit of the slice with libcontainer's properties: no default dependencies, and
 * CPU, memory and tasks accounting on so the controllers are there to write to.
 */
export function systemdSliceCreator(): CgroupCreator {
  return {
    create(path: string) {
      const unit = unitOf(path);
      const parent = unitOf(path.split("/").slice(0, -1).join("/"));
      const props: [string, string, string][] = [
        ["Description", "s", `libcontainer container ${unit}`],
        ["DefaultDependencies", "b", "false"],
        ["CPUAccounting", "b", "true"],
        ["MemoryAccounting", "b", "true"],
        ["TasksAccounting", "b", "true"],
      ];
      if (parent !== "-.slice") props.push(["Wants", "as", `1 ${parent}`]);
      const flat = props.flatMap(([k, sig, v]) => (sig === "as" ? [k, sig, ...v.split(" ")] : [k, sig, v]));
      // The manager asks only for a cgroup that does not exist yet.
      busctl(["StartTransientUnit", "ssa(sv)a(sa(sv))", unit, "replace", String(props.length), ...flat, "0"]);
    },
    destroy(path: string) {
      busctl(["StopUnit", "ss", unitOf(path), "replace"]);
    },
  };
}
