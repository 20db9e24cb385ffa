/**
 * Resource quantities and what the kubelet derives from them for a container's cgroup: CPU shares
 * and CFS quota (pkg/kubelet/cm helpers), the memory limit, the pod's QoS class and the OOM score
 * adjustment (pkg/kubelet/qos). Pure functions of the spec and the node's memory capacity.
 */
import type { Container, Pod, ResourceRequirements } from "../api/index.ts";
import { isStaticPod } from "../api/index.ts";

const MIN_SHARES = 2;
const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
/** 100 ms, the kubelet's default cpuCFSQuotaPeriod, in microseconds. */
const QUOTA_PERIOD_US = 100_000;
const MIN_QUOTA_PERIOD_US = 1000;

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

class QuantityError extends Error {
  constructor(readonly quantity: string) {
    super(`invalid resource quantity ${JSON.stringify(quantity)}`);
    this.name = "QuantityError";
  }
}

/** A Kubernetes quantity ("250m", "1.5", "128Mi", "1e3") as a plain number. */
export function parseQuantity(q: string | number): number {
  if (typeof q === "number") return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/.exec(q.trim());
  if (!m) throw new QuantityError(q);
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? ""];
}

function get(list: Record<string, string | number> | undefined, name: string): number | undefined {
  const v = list?.[name];
  return v === undefined ? undefined : parseQuantity(v);
}

/** CPU in millicores, memory in bytes; undefined when absent. */
export function milliCpu(list: Record<string, string | number> | undefined): number | undefined {
  const v = get(list, "cpu");
  return v === undefined ? undefined : Math.ceil(v * 1000);
}
export function memoryBytes(list: Record<string, string | number> | undefined): number | undefined {
  const v = get(list, "memory");
  return v === undefined ? undefined : Math.ceil(v);
}

export function milliCpuToShares(milli: number): number {
  if (milli === 0) return MIN_SHARES;
  const shares = Math.floor((milli * SHARES_PER_CPU) / 1000);
  return Math.min(Math.max(shares, MIN_SHARES), MAX_SHARES);
}

/** 0 (no quota) when there is no limit. */
export function milliCpuToQuota(milli: number, periodUs = QUOTA_PERIOD_US): number {
  if (milli === 0) return 0;
  return Math.max(Math.floor((milli * periodUs) / 1000), MIN_QUOTA_PERIOD_US);
}

export interface LinuxResources {
  cpuShares: number;
  cpuQuota: number;
  cpuPeriod: number;
  memoryLimitInBytes: number;
}

/** The cgroup values of one container; a missing request defaults to the limit. */
export function containerLinuxResources(resources: ResourceRequirements | undefined): LinuxResources {
  const request = milliCpu(resources?.requests);
  const limit = milliCpu(resources?.limits) ?? 0;
  return {
    cpuShares: milliCpuToShares(request === undefined ? limit : request),
    cpuQuota: milliCpuToQuota(limit),
    cpuPeriod: QUOTA_PERIOD_US,
    memoryLimitInBytes: memoryBytes(resources?.limits) ?? 0,
  };
}

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

/** The pod's QoS class from cpu and memory requests/limits of all its containers. */
export function podQOSClass(pod: Pod): QOSClass {
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    for (const r of ["cpu", "memory"]) {
      const req = get(c.resources?.requests, r);
      const lim = get(c.resources?.limits, r);
      if ((req !== undefined && req !== 0) || (lim !== undefined && lim !== 0)) any = true;
      // Requests default to limits; Guaranteed needs a limit equal to the request for both.
      if (lim === undefined || (req !== undefined && req !== lim)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

const GUARANTEED_OOM_SCORE_ADJ = -997;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000;
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** Static, mirror and system-critical pods are critical; node-critical ones are OOM-protected. */
function isNodeCriticalPod(pod: Pod): boolean {
  const critical = isStaticPod(pod) || (pod.spec.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
  return critical && pod.spec.priorityClassName === "system-node-critical";
}

/** pkg/kubelet/qos GetContainerOOMScoreAdjust. */
export function containerOOMScoreAdjust(pod: Pod, container: Container, memoryCapacity: number): number {
  if (isNodeCriticalPod(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = podQOSClass(pod);
  if (qos === "Guaranteed") return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === "BestEffort") return BEST_EFFORT_OOM_SCORE_ADJ;
  const request = memoryBytes(container.resources?.requests) ?? memoryBytes(container.resources?.limits) ?? 0;
  const adj = 1000 - Math.floor((1000 * request) / memoryCapacity);
  // Burstable sits strictly between Guaranteed (-997 .. 3) and BestEffort (1000).
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BEST_EFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}
