/**
 * The node's capacity as the container manager counts it (the kubelet's cadvisor-based
 * CapacityFromMachineInfo plus pods): cpu in millicores, memory, ephemeral storage (the root
 * dir's filesystem), pods (--max-pods) and one hugepages-<size> resource per page size.
 */
import type { ResourceAmounts } from "./pod-resources.ts";

/** What capacity is read from (the node's MachineInfo). */
export interface MachineCapacityInfo {
  numCores: number;
  memoryCapacityBytes: number;
  rootfsCapacityBytes: number;
  hugePages: { pageSizeBytes: number; pages: number }[];
}

export function machineCapacity(machine: MachineCapacityInfo, maxPods: number): ResourceAmounts {
  const capacity: ResourceAmounts = new Map([
    ["cpu", BigInt(machine.numCores) * 1000n],
    ["ephemeral-storage", BigInt(machine.rootfsCapacityBytes)],
    ["memory", BigInt(machine.memoryCapacityBytes)],
    ["pods", BigInt(maxPods)],
  ]);
  for (const hp of machine.hugePages) capacity.set(`hugepages-${hugePageName(hp.pageSizeBytes)}`, BigInt(hp.pageSizeBytes * hp.pages));
  return capacity;
}

/** 2097152 → "2Mi", as the resource is named. */
export function hugePageName(bytes: number): string {
  const units = ["", "Ki", "Mi", "Gi", "Ti"];
  let n = bytes;
  let i = 0;
  while (n % 1024 === 0 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n}${units[i]}`;
}
