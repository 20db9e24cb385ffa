/**
 * Node allocatable (node_container_manager_linux.go, nodestatus setters.go): the reservation is
 * kubeReserved + systemReserved + the hard eviction thresholds on memory.available (memory) and
 * nodefs.available (ephemeral-storage), a percentage taken of the capacity; allocatable is the
 * capacity less it, never below 0, and less the hugepages on memory. What `kubepods` is limited
 * to when enforceNodeAllocatable names "pods" is the capacity less kubeReserved and systemReserved
 * only: the eviction thresholds are left for the eviction manager to defend.
 * Amounts: cpu in millicores, everything else in its integer value (bytes, pids).
 */
import { resourceQuantity } from "../api/index.ts";
import type { ResourceAmounts } from "./pod-resources.ts";
import { hugePageLimits } from "./pod-resources.ts";
import { milliCpuToShares, type ResourceConfig } from "./resource-config.ts";

/** A hard eviction threshold as the allocatable sees it (signal < quantity, or < percentage of capacity). */
export interface HardEvictionThreshold {
  signal: string;
  /** Bytes, when the threshold is a quantity. */
  quantity?: bigint;
  /** 0..1, when it is a percentage. */
  percentage?: number;
}

export interface AllocatableConfig {
  kubeReserved: Readonly<Record<string, string>>;
  systemReserved: Readonly<Record<string, string>>;
  hardEviction: readonly HardEvictionThreshold[];
}

/** A reserved-resources map (kubeReserved: {cpu: "100m", memory: "1Gi", pid: "1000"}) as amounts. */
export function reservedAmounts(list: Readonly<Record<string, string>>): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const name of Object.keys(list)) {
    const q = resourceQuantity(list, name);
    out.set(name, name === "cpu" ? q.milliValue() : q.value());
  }
  return out;
}

/** GetThresholdQuantity: the quantity, or the percentage of the capacity (float64, truncated, as Go). */
function thresholdAmount(t: HardEvictionThreshold, capacity: bigint): bigint {
  if (t.quantity !== undefined) return t.quantity;
  return BigInt(Math.trunc(Number(capacity) * (t.percentage ?? 0)));
}

/** hardEvictionReservation. */
export function hardEvictionReservation(thresholds: readonly HardEvictionThreshold[], capacity: ResourceAmounts): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const t of thresholds) {
    if (t.signal === "memory.available") out.set("memory", thresholdAmount(t, capacity.get("memory") ?? 0n));
    else if (t.signal === "nodefs.available") out.set("ephemeral-storage", thresholdAmount(t, capacity.get("ephemeral-storage") ?? 0n));
  }
  return out;
}

/** GetNodeAllocatableReservation: per resource of the capacity, only the non-zero sums. */
export function allocatableReservation(capacity: ResourceAmounts, config: AllocatableConfig): ResourceAmounts {
  const kube = reservedAmounts(config.kubeReserved);
  const system = reservedAmounts(config.systemReserved);
  const eviction = hardEvictionReservation(config.hardEviction, capacity);
  const out: ResourceAmounts = new Map();
  for (const name of capacity.keys()) {
    const sum = (kube.get(name) ?? 0n) + (system.get(name) ?? 0n) + (eviction.get(name) ?? 0n);
    if (sum !== 0n) out.set(name, sum);
  }
  return out;
}

/** The Node's allocatable (MachineInfo setter): capacity less the reservation, memory less the hugepages. */
export function nodeAllocatable(capacity: ResourceAmounts, reservation: ResourceAmounts): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  const floor = (n: bigint) => (n < 0n ? 0n : n);
  for (const [name, n] of capacity) {
    if (name.startsWith("hugepages-")) continue;
    out.set(name, floor(n - (reservation.get(name) ?? 0n)));
  }
  for (const [name, n] of capacity) {
    if (name.startsWith("hugepages-")) out.set("memory", floor((out.get("memory") ?? 0n) - n));
  }
  for (const [name, n] of capacity) if (name.startsWith("hugepages-")) out.set(name, n);
  return out;
}

/** getNodeAllocatableAbsoluteImpl: capacity less kubeReserved and systemReserved, at least 0. */
export function allocatableAbsolute(capacity: ResourceAmounts, config: Pick<AllocatableConfig, "kubeReserved" | "systemReserved">): ResourceAmounts {
  const kube = reservedAmounts(config.kubeReserved);
  const system = reservedAmounts(config.systemReserved);
  const out: ResourceAmounts = new Map();
  for (const [name, n] of capacity) {
    const v = n - (kube.get(name) ?? 0n) - (system.get(name) ?? 0n);
    out.set(name, v < 0n ? 0n : v);
  }
  return out;
}

/**
 * What kubepods is limited to (enforceNodeAllocatableCgroups): the internal capacity, which is the
 * capacity with the node's pids (kernel.pid_max, as read from /proc; unreadable = no pid limit),
 * less kubeReserved and systemReserved when cgroupsPerQOS is on and enforceNodeAllocatable names
 * "pods"; never a count of pods.
 */
export function kubepodsLimits(
  capacity: ResourceAmounts,
  pidMax: string,
  config: Pick<AllocatableConfig, "kubeReserved" | "systemReserved">,
  enforcement: { cgroupsPerQOS: boolean; enforceNodeAllocatable: ReadonlySet<string> },
): ResourceAmounts {
  const internalCapacity = new Map(capacity);
  if (/^\d+$/.test(pidMax.trim())) internalCapacity.set("pid", BigInt(pidMax.trim()));
  const limits = enforcement.cgroupsPerQOS && enforcement.enforceNodeAllocatable.has("pods") ? allocatableAbsolute(internalCapacity, config) : internalCapacity;
  limits.delete("pods");
  return limits;
}

/** getCgroupConfigInternal: the cgroup values of a resource list (kubepods, or a reserved cgroup). */
export function cgroupConfigFor(list: ResourceAmounts, compressibleOnly = false): ResourceConfig {
  const rc: ResourceConfig = {};
  const cpu = list.get("cpu");
  if (cpu !== undefined) rc.cpuShares = milliCpuToShares(cpu);
  if (compressibleOnly) return rc;
  const memory = list.get("memory");
  if (memory !== undefined) rc.memory = memory;
  const pids = list.get("pid");
  if (pids !== undefined) rc.pidsLimit = pids;
  rc.hugePageLimit = hugePageLimits(list);
  return rc;
}

/** validateNodeAllocatable: a reservation larger than the capacity is refused at start, in the kubelet's words. */
export function validateNodeAllocatable(capacity: ResourceAmounts, reservation: ResourceAmounts, format: (name: string, n: bigint) => string): string | undefined {
  const problems: string[] = [];
  for (const [name, n] of reservation) {
    const cap = capacity.get(name) ?? 0n;
    if (cap - n < 0n) problems.push(`Resource "${name}" has a reservation of ${format(name, n)} but capacity of ${format(name, cap)}. Expected capacity >= reservation.`);
  }
  return problems.length > 0 ? `invalid Node Allocatable configuration. ${problems.join(" ")}` : undefined;
}
