/**
 * The reserved cgroups' enforcement (node_container_manager_linux.go enforceNodeAllocatableCgroups,
 * enforceExistingCgroup): when enforceNodeAllocatable names system-reserved or kube-reserved (or
 * their -compressible forms, CPU only), the cgroup named by --system-reserved-cgroup or
 * --kube-reserved-cgroup must exist and is limited to the reservation. The first failure is
 * returned, in the kubelet's words, for the start to refuse with; nothing after it is touched.
 */
import type { CgroupFs } from "./cgroupfs.ts";
import { CgroupError } from "./cgroupfs.ts";
import { cgroupConfigFor, reservedAmounts } from "./allocatable.ts";
import { driverName, parseCgroupfs, parseSystemd, type CgroupDriver } from "./names.ts";

export interface ReservedCgroup {
  /** --system-reserved-cgroup / --kube-reserved-cgroup as given. */
  cgroup: string;
  /** systemReserved / kubeReserved. */
  reserved: Readonly<Record<string, string>>;
}

/** Why a reserved cgroup could not be enforced: the flag that names it and the kubelet's message. */
export interface ReservedCgroupFailure {
  flag: "--system-reserved-cgroup" | "--kube-reserved-cgroup";
  message: string;
}

export function enforceReservedCgroups(
  fs: Pick<CgroupFs, "exists" | "set">,
  driver: CgroupDriver,
  enforce: ReadonlySet<string>,
  reserved: { system: ReservedCgroup; kube: ReservedCgroup },
): ReservedCgroupFailure | undefined {
  const parse = driver === "systemd" ? parseSystemd : parseCgroupfs;
  const cases = [
    { keys: ["system-reserved", "system-reserved-compressible"], what: "System Reserved", ...reserved.system },
    { keys: ["kube-reserved", "kube-reserved-compressible"], what: "Kube Reserved", ...reserved.kube },
  ] as const;
  for (const c of cases) {
    const key = c.keys.find((k) => enforce.has(k));
    if (key === undefined) continue;
    const compressible = key.endsWith("-compressible");
    const path = driverName(driver, parse(c.cgroup));
    const flag = `--${c.keys[0]}-cgroup` as const;
    const failed = `Failed to enforce ${compressible ? `${c.what} Compressible` : c.what} Cgroup Limits on ${JSON.stringify(c.cgroup)}`;
    if (!fs.exists(path)) return { flag, message: `${failed}: cgroup ${JSON.stringify(path)} does not exist` };
    try {
      fs.set(path, cgroupConfigFor(reservedAmounts(c.reserved), compressible));
    } catch (err) {
      if (!(err instanceof CgroupError)) throw err;
      return { flag, message: `${failed}: ${err.message}` };
    }
  }
  return undefined;
}
