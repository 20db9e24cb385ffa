/**
 * The container manager's settings (issue 25): the cgroup hierarchy (cgroupsPerQOS, cgroupRoot),
 * the pod cgroup's limits (podPidsLimit, cpuCFSQuota), node allocatable (kubeReserved,
 * systemReserved, enforceNodeAllocatable and the reserved cgroups), qosReserved, and the cgroups
 * the Summary API names as system containers. Kubelet names, defaults (defaults.go) and flag
 * spellings; reserved amounts are checked as the kubelet's parseResourceList checks them, and the
 * cross-field rules are ValidateKubeletConfiguration's, in its words.
 */
import { Quantity, QuantityError } from "../api/index.ts";
import type { FlagDef } from "./flags.ts";
import type { ConfigLayer } from "./types.ts";
import * as v from "./values.ts";

export interface CgroupsConfig {
  /** cgroupsPerQOS: the kubepods / QoS / pod hierarchy. */
  cgroupsPerQOS: boolean;
  /** cgroupRoot: where kubepods lives; "" = "/" when cgroupsPerQOS (as the kubelet's server.go). */
  cgroupRoot: string;
  /** podPidsLimit: pids.max of each pod cgroup; -1 = none. */
  podPidsLimit: number;
  /** cpuCFSQuota: enforce CPU limits with CFS quota. */
  cpuCFSQuota: boolean;
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  kubeReservedCgroup: string;
  systemReservedCgroup: string;
  /** enforceNodeAllocatable: "pods", "kube-reserved", "system-reserved", their "-compressible" forms, or "none". */
  enforceNodeAllocatable: string[];
  /** qosReserved: {memory: "50%"}, acted on with the QOSReserved gate. */
  qosReserved: Record<string, string>;
  /** kubeletCgroups / systemCgroups / --runtime-cgroups: the Summary API's system containers. */
  kubeletCgroups: string;
  systemCgroups: string;
  runtimeCgroups: string;
}

export const cgroupsDefaults: CgroupsConfig = {
  cgroupsPerQOS: true,
  cgroupRoot: "",
  podPidsLimit: -1,
  cpuCFSQuota: true,
  kubeReserved: {},
  systemReserved: {},
  kubeReservedCgroup: "",
  systemReservedCgroup: "",
  enforceNodeAllocatable: ["pods"],
  qosReserved: {},
  kubeletCgroups: "",
  systemCgroups: "",
  runtimeCgroups: "",
};

const RESERVABLE = ["cpu", "memory", "ephemeral-storage", "pid"];

/** parseResourceList (cmd/kubelet/app/server.go). */
function reservedList(m: Record<string, string>): Record<string, string> {
  for (const [k, value] of Object.entries(m)) {
    if (!RESERVABLE.includes(k)) throw new v.ValueError(`cannot reserve ${JSON.stringify(k)} resource`);
    let q: Quantity;
    try {
      q = Quantity.parse(value);
    } catch (err) {
      if (err instanceof QuantityError) throw new v.ValueError(`failed to parse quantity ${JSON.stringify(value)} for ${JSON.stringify(k)} resource: ${err.message}`);
      throw err;
    }
    if (q.sign() < 0) throw new v.ValueError(`resource quantity for ${JSON.stringify(k)} cannot be negative: ${value}`);
  }
  return m;
}

/** ParseQOSReserved: only memory, as a whole percentage 0..100. */
function qosReservedPercent(m: Record<string, string>): Record<string, string> {
  for (const [k, value] of Object.entries(m)) {
    if (k !== "memory") throw new v.ValueError(`cannot reserve ${JSON.stringify(k)} resource`);
    if (!value.endsWith("%")) throw new v.ValueError(`failed to parse percentage ${JSON.stringify(value)} for "memory" resource: percentage expected, got '${value}'`);
    const n = value.slice(0, -1);
    if (!/^[+-]?\d+$/.test(n)) throw new v.ValueError(`failed to parse percentage ${JSON.stringify(value)} for "memory" resource: invalid number in percentage '${value}'`);
    const p = Number(n);
    if (p < 0 || p > 100) throw new v.ValueError(`failed to parse percentage ${JSON.stringify(value)} for "memory" resource: percentage must be between 0 and 100`);
  }
  return m;
}

/**
 * The memory percentage the QoS tiers' limits are reserved with (qos_container_manager_linux.go
 * setMemoryReserve): qosReserved's memory, acted on only with the QOSReserved gate; undefined
 * when the gate is off or no memory is reserved. The value was checked at parse time.
 */
export function qosReservedMemoryPercent(config: { qosReserved: Readonly<Record<string, string>>; featureGates: Readonly<Record<string, boolean | undefined>> }): bigint | undefined {
  const memory = config.qosReserved.memory;
  return config.featureGates.QOSReserved && memory !== undefined ? BigInt(memory.slice(0, -1)) : undefined;
}

type Obj = Record<string, unknown>;
const describe = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "a list" : `${typeof x} ${JSON.stringify(x)}`);
function fileBool(x: unknown): boolean {
  if (typeof x !== "boolean") throw new v.ValueError(`expected true or false, found ${describe(x)}`);
  return x;
}
function fileStr(x: unknown): string {
  if (typeof x !== "string") throw new v.ValueError(`expected a string, found ${describe(x)}`);
  return x;
}
function fileMap(x: unknown): Record<string, string> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) throw new v.ValueError(`expected a map of resource name to quantity, found ${describe(x)}`);
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(x as Obj)) out[k] = typeof value === "number" ? String(value) : fileStr(value);
  return out;
}
function fileList(x: unknown): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string")) throw new v.ValueError(`expected a list of strings, found ${describe(x)}`);
  return x;
}
function int64(x: unknown): number {
  if (typeof x !== "number" || !Number.isInteger(x)) throw new v.ValueError(`expected an integer, found ${describe(x)}`);
  return x;
}

/** The defaulting turns a negative podPidsLimit into -1. */
const pidsLimit = (n: number) => (n < 0 ? -1 : n);

export const cgroupsReaders: Record<string, (x: unknown, layer: ConfigLayer) => void> = {
  cgroupsPerQOS: (x, l) => void (l.cgroupsPerQOS = fileBool(x)),
  cgroupRoot: (x, l) => void (l.cgroupRoot = fileStr(x)),
  podPidsLimit: (x, l) => void (l.podPidsLimit = pidsLimit(int64(x))),
  cpuCFSQuota: (x, l) => void (l.cpuCFSQuota = fileBool(x)),
  kubeReserved: (x, l) => void (l.kubeReserved = reservedList(fileMap(x))),
  systemReserved: (x, l) => void (l.systemReserved = reservedList(fileMap(x))),
  kubeReservedCgroup: (x, l) => void (l.kubeReservedCgroup = fileStr(x)),
  systemReservedCgroup: (x, l) => void (l.systemReservedCgroup = fileStr(x)),
  enforceNodeAllocatable: (x, l) => void (l.enforceNodeAllocatable = fileList(x)),
  qosReserved: (x, l) => void (l.qosReserved = qosReservedPercent(fileMap(x))),
  kubeletCgroups: (x, l) => void (l.kubeletCgroups = fileStr(x)),
  systemCgroups: (x, l) => void (l.systemCgroups = fileStr(x)),
};

const ENFORCEMENTS = ["pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible", "none"];
const FLAG = "enforceNodeAllocatable (--enforce-node-allocatable)";

/** ValidateKubeletConfiguration's rules on these fields; the first problem, in the kubelet's words. */
export function validateCgroups(c: CgroupsConfig): string | undefined {
  if (c.systemCgroups !== "" && c.cgroupRoot === "") {
    return "invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified";
  }
  const has = (k: string) => c.enforceNodeAllocatable.includes(k);
  if (has("system-reserved-compressible") && has("system-reserved")) {
    return `invalid configuration: both "system-reserved" and "system-reserved-compressible" cannot be specified together in ${FLAG}`;
  }
  if (has("kube-reserved-compressible") && has("kube-reserved")) {
    return `invalid configuration: both "kube-reserved" and "kube-reserved-compressible" cannot be specified together in ${FLAG}`;
  }
  const seen = new Set<string>();
  for (const val of c.enforceNodeAllocatable) {
    if (seen.has(val)) return `invalid configuration: duplicated enforcements ${JSON.stringify(val)} in ${FLAG}`;
    seen.add(val);
    if (!ENFORCEMENTS.includes(val)) {
      return `invalid configuration: option ${JSON.stringify(val)} specified for ${FLAG}. Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"`;
    }
    if (val === "none") {
      if (c.enforceNodeAllocatable.length > 1) return `invalid configuration: ${FLAG} may not contain additional enforcements when "none" is specified`;
      continue;
    }
    if (val.startsWith("system-reserved") && c.systemReservedCgroup === "") {
      return `invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or "system-reserved-compressible" included in ${FLAG}`;
    }
    if (val.startsWith("kube-reserved") && c.kubeReservedCgroup === "") {
      return `invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" or "kube-reserved-compressible" included in ${FLAG}`;
    }
    if (!c.cgroupsPerQOS) return `invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when ${JSON.stringify(val)} contained in ${FLAG}`;
  }
  return undefined;
}

const GROUP = "Cgroups and node allocatable";

/** pflag's stringSlice: comma-separated, a repeated flag appends. */
const stringSlice = (raw: string) => raw.split(",").map((s) => s.trim()).filter((s) => s !== "");

export const cgroupsFlagDefs: readonly FlagDef[] = [
  { name: "cgroups-per-qos", bool: true, type: "", group: GROUP, field: "cgroupsPerQOS", defaultText: "true",
    usage: "Create the kubepods cgroup hierarchy (QoS tiers and a cgroup per pod) and put every pod in it.",
    set: (s, raw) => void (s.layer.cgroupsPerQOS = v.boolFromString(raw)) },
  { name: "cgroup-root", type: "string", group: GROUP, field: "cgroupRoot", defaultText: "/ (with --cgroups-per-qos)",
    usage: "The existing cgroup kubepods is created under.",
    set: (s, raw) => void (s.layer.cgroupRoot = raw) },
  { name: "pod-max-pids", type: "int64", group: GROUP, field: "podPidsLimit", defaultText: "-1",
    usage: "Most processes in a pod (pids.max of its cgroup); -1 = no limit.",
    set: (s, raw) => void (s.layer.podPidsLimit = pidsLimit(v.intFromString(raw))) },
  { name: "cpu-cfs-quota", bool: true, type: "", group: GROUP, field: "cpuCFSQuota", defaultText: "true",
    usage: "Enforce CPU limits with CFS quota.",
    set: (s, raw) => void (s.layer.cpuCFSQuota = v.boolFromString(raw)) },
  { name: "kube-reserved", type: "mapStringString", group: GROUP, field: "kubeReserved",
    usage: "Resources set aside for Kubernetes system daemons, 'cpu=100m,memory=500Mi,ephemeral-storage=1Gi,pid=1000'; left out of allocatable.",
    set: (s, raw) => void (s.layer.kubeReserved = reservedList(v.separatedMap(raw, "=", s.layer.kubeReserved))) },
  { name: "system-reserved", type: "mapStringString", group: GROUP, field: "systemReserved",
    usage: "Resources set aside for the OS's daemons, same form as --kube-reserved; left out of allocatable.",
    set: (s, raw) => void (s.layer.systemReserved = reservedList(v.separatedMap(raw, "=", s.layer.systemReserved))) },
  { name: "kube-reserved-cgroup", type: "string", group: GROUP, field: "kubeReservedCgroup",
    usage: "The cgroup --kube-reserved is enforced on when --enforce-node-allocatable names kube-reserved.",
    set: (s, raw) => void (s.layer.kubeReservedCgroup = raw) },
  { name: "system-reserved-cgroup", type: "string", group: GROUP, field: "systemReservedCgroup",
    usage: "The cgroup --system-reserved is enforced on when --enforce-node-allocatable names system-reserved.",
    set: (s, raw) => void (s.layer.systemReservedCgroup = raw) },
  { name: "enforce-node-allocatable", type: "strings", group: GROUP, field: "enforceNodeAllocatable", defaultText: "[pods]",
    usage: "Where allocatable is enforced: pods (kubepods), system-reserved, kube-reserved, their -compressible forms (CPU only), or none.",
    set: (s, raw) => void (s.layer.enforceNodeAllocatable = stringSlice(raw)) },
  { name: "qos-reserved", type: "mapStringString", group: GROUP, field: "qosReserved",
    usage: "With the QOSReserved gate: 'memory=N%' of the requests of higher QoS tiers kept from lower ones (burstable and besteffort memory limits).",
    set: (s, raw) => void (s.layer.qosReserved = qosReservedPercent(v.separatedMap(raw, "=", s.layer.qosReserved))) },
  { name: "kubelet-cgroups", type: "string", group: GROUP, field: "kubeletCgroups",
    usage: "The cgroup bunlet runs in, reported as the system container \"kubelet\"; default: its own.",
    set: (s, raw) => void (s.layer.kubeletCgroups = raw) },
  { name: "system-cgroups", type: "string", group: GROUP, field: "systemCgroups",
    usage: "The cgroup of the OS's processes not in a cgroup, reported as the system container \"misc\"; needs --cgroup-root.",
    set: (s, raw) => void (s.layer.systemCgroups = raw) },
  { name: "runtime-cgroups", type: "string", group: GROUP,
    usage: "The container runtime's cgroup, reported as the system container \"runtime\"; default: the runtime process's own.",
    set: (s, raw) => void (s.layer.runtimeCgroups = raw) },
];
