/**
 * Where the cgroup controllers are mounted (helpers_linux.go GetCgroupSubsystems): cgroup v2 when
 * /sys/fs/cgroup itself is a cgroup2 mount (the kubelet's IsCgroup2UnifiedMode), otherwise every
 * v1 hierarchy from /proc/self/mountinfo, keyed by subsystem ("cpu", "memory", "name=systemd"),
 * the shortest mount point winning. A hybrid host (v1 controllers plus an empty cgroup2 at
 * /sys/fs/cgroup/unified) is v1, as for the kubelet, with that cgroup2 kept under the key "" (as
 * libcontainer keeps it). Also the host's hugepage sizes.
 */

export interface CgroupSubsystems {
  version: 1 | 2;
  /** v1: subsystem → mount point; v2: every controller of the root → the one mount point. */
  mountPoints: ReadonlyMap<string, string>;
  /** The v2 mount point (v2 only). */
  unifiedRoot?: string;
  /** Hugepage sizes in bytes, when hugetlb is a controller here. */
  hugePageSizes: readonly bigint[];
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** One mountinfo line's mount point, filesystem type and super options. */
function parseMountinfoLine(line: string): { mountPoint: string; fsType: string; superOptions: string[] } | undefined {
  const fields = line.split(" ");
  const dash = fields.indexOf("-");
  if (dash < 0 || fields.length < dash + 4) return undefined;
  // Octal escapes (\040 for a space) as the kernel writes them.
  const mountPoint = (fields[4] ?? "").replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  return { mountPoint, fsType: fields[dash + 1] ?? "", superOptions: (fields[dash + 3] ?? "").split(",") };
}

const V1_OPTIONS_NOT_SUBSYSTEMS = new Set(["rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "xattr", "noprefix"]);

export interface SubsystemInputs {
  mountinfo: string;
  /** The controllers of the v2 root (cgroup.controllers), read only when the host is v2. */
  rootControllers(): string;
  /** Names under /sys/kernel/mm/hugepages ("hugepages-2048kB"). */
  hugePageDirs: readonly string[];
}

/** hugepages-2048kB → 2 MiB in bytes. */
export function hugePageSizesFrom(dirs: readonly string[]): bigint[] {
  const out: bigint[] = [];
  for (const d of dirs) {
    const m = /^hugepages-(\d+)kB$/.exec(d);
    if (m) out.push(BigInt(m[1] ?? "0") * 1024n);
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function cgroupSubsystems(inputs: SubsystemInputs): CgroupSubsystems {
  const mounts = inputs.mountinfo.split("\n").map(parseMountinfoLine).filter((m) => m !== undefined);
  const unified = mounts.find((m) => m.mountPoint === CGROUP_ROOT && m.fsType === "cgroup2");
  if (unified) {
    const controllers = inputs.rootControllers().trim().split(/\s+/).filter((c) => c !== "");
    return {
      version: 2,
      unifiedRoot: CGROUP_ROOT,
      mountPoints: new Map(controllers.map((c) => [c, CGROUP_ROOT])),
      hugePageSizes: controllers.includes("hugetlb") ? hugePageSizesFrom(inputs.hugePageDirs) : [],
    };
  }
  const mountPoints = new Map<string, string>();
  for (const m of mounts) {
    if (m.fsType !== "cgroup") continue;
    for (const option of m.superOptions) {
      if (V1_OPTIONS_NOT_SUBSYSTEMS.has(option) || option.startsWith("release_agent=")) continue;
      const previous = mountPoints.get(option);
      if (previous === undefined || m.mountPoint.length < previous.length) mountPoints.set(option, m.mountPoint);
    }
  }
  // Hybrid: runc puts every container in the cgroup2 hierarchy too (libcontainer's "" path), so
  // bunlet's cgroups are made and removed there as well, or their directories would be left.
  const hybrid = mounts.find((m) => m.fsType === "cgroup2" && m.mountPoint === `${CGROUP_ROOT}/unified`);
  if (hybrid) mountPoints.set("", hybrid.mountPoint);
  return { version: 1, mountPoints, hugePageSizes: mountPoints.has("hugetlb") ? hugePageSizesFrom(inputs.hugePageDirs) : [] };
}

/** HugePageUnitSizeFromByteSize: 2097152 → "2MB", as the hugetlb files are named. */
export function hugePageUnit(bytes: bigint): string {
  const units = ["B", "KB", "MB", "GB", "TB", "PB"];
  let size = bytes;
  let i = 0;
  while (size >= 1024n && size % 1024n === 0n && i < units.length - 1) {
    size /= 1024n;
    i++;
  }
  return `${size}${units[i]}`;
}
