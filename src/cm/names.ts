/**
 * Cgroup names as the kubelet keeps them (pkg/kubelet/cm cgroup_manager_linux.go): a CgroupName
 * is a list of components, driver-neutral; the cgroupfs driver joins them with "/", the systemd
 * driver turns them into a nested `.slice` path with "-" in a component escaped as "_".
 */

/** ["kubepods", "burstable", "pod<uid>"]; [] is the root. */
export type CgroupName = readonly string[];

export type CgroupDriver = "cgroupfs" | "systemd";

export class CgroupNameError extends Error {
  override readonly name = "CgroupNameError";
}

/** NewCgroupName: a component with "/" in it would escape its parent, so it is refused. */
export function newCgroupName(base: CgroupName, ...components: string[]): CgroupName {
  for (const c of components) {
    if (c.includes("/") || c === "") throw new CgroupNameError(`invalid character in component [${JSON.stringify(c)}] of CgroupName`);
  }
  return [...base, ...components];
}

/** systemd reads "-" in a slice name as a level of nesting, so the kubelet writes it as "_". */
const escapeSystemd = (part: string) => part.replaceAll("-", "_");
const unescapeSystemd = (part: string) => part.replaceAll("_", "-");

/**
 * The full path systemd gives a slice (runc's ExpandSlice): "a-b-c.slice" lives under
 * "/a.slice/a-b.slice/a-b-c.slice".
 */
export function expandSlice(slice: string): string {
  const suffix = ".slice";
  if (slice.length < suffix.length || !slice.endsWith(suffix) || slice.includes("/")) {
    throw new CgroupNameError(`invalid slice name: ${slice}`);
  }
  const name = slice.slice(0, -suffix.length);
  if (name === "-") return "/";
  let path = "";
  let prefix = "";
  for (const component of name.split("-")) {
    if (component === "") throw new CgroupNameError(`invalid slice name: ${slice}`);
    path += `/${prefix}${component}${suffix}`;
    prefix += `${component}-`;
  }
  return path;
}

/** CgroupName.ToSystemd: "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice". */
export function toSystemd(name: CgroupName): string {
  if (name.length === 0 || (name.length === 1 && name[0] === "")) return "/";
  return expandSlice(`${name.map(escapeSystemd).join("-")}.slice`);
}

/** CgroupName.ToCgroupfs: "/kubepods/burstable/pod<uid>". */
export function toCgroupfs(name: CgroupName): string {
  return `/${name.join("/")}`;
}

/** The name as the driver spells it: what the runtime gets as cgroup_parent. */
export function driverName(driver: CgroupDriver, name: CgroupName): string {
  return driver === "systemd" ? toSystemd(name) : toCgroupfs(name);
}

/** ParseCgroupfsToCgroupName: "/a/b" → ["a", "b"]; "/" → []. */
export function parseCgroupfs(path: string): CgroupName {
  return path.split("/").filter((c) => c !== "");
}

/** ParseSystemdToCgroupName: the last slice of the path, split on "-", unescaped. */
export function parseSystemd(path: string): CgroupName {
  const base = path.split("/").filter((c) => c !== "").at(-1) ?? "";
  const name = base.endsWith(".slice") ? base.slice(0, -".slice".length) : base;
  if (name === "" || name === "-") return [];
  return name.split("-").map(unescapeSystemd);
}

/** GetPodCgroupNameSuffix: "pod" + the pod's UID. */
export const POD_CGROUP_PREFIX = "pod";
export const podCgroupSuffix = (uid: string) => `${POD_CGROUP_PREFIX}${uid}`;
