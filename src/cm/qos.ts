/**
 * The QoS tier cgroups' values (qos_container_manager_linux.go UpdateCgroups): besteffort gets the
 * minimum CPU shares, burstable the shares of the sum of its active pods' CPU requests, both
 * unbounded hugepages; with the QOSReserved gate and `qosReserved: {memory: N%}`, burstable is
 * limited to allocatable minus N% of the Guaranteed pods' memory requests and besteffort further
 * by N% of the Burstable pods' requests. Guaranteed pods sit straight under kubepods.
 */
import { computePodQOS, type Pod } from "../api/index.ts";
import { podRequests } from "./pod-resources.ts";
import { MIN_SHARES, milliCpuToShares, type ResourceConfig } from "./resource-config.ts";

export type QOSTier = "burstable" | "besteffort";

export interface QOSTierValues {
  burstable: ResourceConfig;
  besteffort: ResourceConfig;
}

export interface QOSTierInputs {
  activePods: readonly Pod[];
  /** qosReserved memory percent when the QOSReserved gate is on; undefined otherwise. */
  memoryReservePercent?: bigint;
  /** Allocatable memory in bytes (0 = unknown: no QoS memory limits, as the kubelet). */
  allocatableMemory: bigint;
  /** The host's hugepage sizes, in bytes: each tier is left unbounded for every one of them. */
  hugePageSizes: readonly bigint[];
}

const UNBOUNDED = (1n << 63n) - 1n;

export function qosTierValues(inputs: QOSTierInputs): QOSTierValues {
  let burstableCPU = 0n;
  const memoryRequests = { Guaranteed: 0n, Burstable: 0n };
  for (const pod of inputs.activePods) {
    const qos = computePodQOS(pod);
    if (qos === "BestEffort") continue;
    const reqs = podRequests(pod);
    if (qos === "Burstable") burstableCPU += reqs.get("cpu") ?? 0n;
    memoryRequests[qos] += reqs.get("memory") ?? 0n;
  }
  const unbounded = () => new Map(inputs.hugePageSizes.map((size) => [size, UNBOUNDED]));
  const values: QOSTierValues = {
    burstable: { cpuShares: milliCpuToShares(burstableCPU), hugePageLimit: unbounded() },
    besteffort: { cpuShares: MIN_SHARES, hugePageLimit: unbounded() },
  };
  const percent = inputs.memoryReservePercent;
  if (percent !== undefined && inputs.allocatableMemory > 0n) {
    const burstableLimit = inputs.allocatableMemory - (memoryRequests.Guaranteed * percent) / 100n;
    values.burstable.memory = burstableLimit;
    values.besteffort.memory = burstableLimit - (memoryRequests.Burstable * percent) / 100n;
  }
  return values;
}
