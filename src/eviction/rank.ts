/**
 * Which pod goes first, and what it is told (pkg/kubelet/eviction/helpers.go): for memory,
 * pods using more than they requested, then lower priority, then the largest use above the
 * request (rankMemoryPressure); for disk the same with ephemeral storage (rankDiskPressure); for
 * PIDs lower priority, then more processes. A pod without stats goes first, as in the kubelet.
 * QoS follows from requests: a BestEffort pod requests nothing, so any use exceeds it.
 */
import { Quantity, resourceQuantity, type Pod } from "../api/index.ts";
import type { Signal } from "./thresholds.ts";

/** The stats of one pod that ranking and the message read (src/stats's PodStats fits). */
export interface PodUsage {
  memory?: { workingSetBytes?: bigint };
  "ephemeral-storage"?: { usedBytes?: bigint };
  containers: { name: string; memory?: { workingSetBytes?: bigint }; rootfs?: { usedBytes?: bigint }; logs?: { usedBytes?: bigint } }[];
  /** Processes of the pod, when known (pid.available ranking). */
  processCount?: bigint;
}

/** A pod's request of a resource: the sum over its containers, or the largest init container's if larger (the kubelet's PodRequests). */
function podRequest(pod: Pod, resource: string): bigint {
  const value = (list: Record<string, string | number> | undefined) => resourceQuantity(list, resource).value();
  const sum = (pod.spec?.containers ?? []).reduce((acc, c) => acc + value(c.resources?.requests as Record<string, string> | undefined), 0n);
  const init = (pod.spec?.initContainers ?? []).reduce((max, c) => {
    const v = value(c.resources?.requests as Record<string, string> | undefined);
    return v > max ? v : max;
  }, 0n);
  return sum > init ? sum : init;
}

function usageOf(stats: PodUsage, resource: string): bigint | undefined {
  if (resource === "memory") return stats.memory?.workingSetBytes;
  if (resource === "ephemeral-storage") return stats["ephemeral-storage"]?.usedBytes;
  return undefined;
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const priorityOf = (pod: Pod) => BigInt(pod.spec?.priority ?? 0);

type Cmp = (a: Pod, b: Pod) => number;

function orderedBy(...cmps: Cmp[]): Cmp {
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** exceedRequests: pods whose use exceeds their request first; pods without stats before both. */
function exceedRequests(stats: (uid: string) => PodUsage | undefined, resource: string): Cmp {
  return (a, b) => {
    const sa = stats(a.metadata.uid ?? "");
    const sb = stats(b.metadata.uid ?? "");
    const ua = sa && usageOf(sa, resource);
    const ub = sb && usageOf(sb, resource);
    if (ua === undefined || ub === undefined) return ua === ub ? 0 : ua === undefined ? -1 : 1;
    const ea = ua > podRequest(a, resource);
    const eb = ub > podRequest(b, resource);
    return ea === eb ? 0 : ea ? -1 : 1;
  };
}

/** Lower priority first. */
const priority: Cmp = (a, b) => cmp(priorityOf(a), priorityOf(b));

/** The larger use above the request first. */
function usageAboveRequest(stats: (uid: string) => PodUsage | undefined, resource: string): Cmp {
  return (a, b) => {
    const above = (p: Pod) => (usageOf(stats(p.metadata.uid ?? "") ?? { containers: [] }, resource) ?? 0n) - podRequest(p, resource);
    return cmp(above(b), above(a));
  };
}

function processes(stats: (uid: string) => PodUsage | undefined): Cmp {
  return (a, b) => cmp(stats(b.metadata.uid ?? "")?.processCount ?? 0n, stats(a.metadata.uid ?? "")?.processCount ?? 0n);
}

/** The pods in the order the kubelet evicts them for a signal. */
export function rankForEviction(signal: Signal, pods: readonly Pod[], stats: (uid: string) => PodUsage | undefined): Pod[] {
  const order =
    signal === "memory.available"
      ? orderedBy(exceedRequests(stats, "memory"), priority, usageAboveRequest(stats, "memory"))
      : signal === "pid.available"
        ? orderedBy(priority, processes(stats))
        : orderedBy(exceedRequests(stats, "ephemeral-storage"), priority, usageAboveRequest(stats, "ephemeral-storage"));
  return [...pods].sort(order);
}

const bytes = (n: bigint) => Quantity.of(n, "BinarySI").toString();

/**
 * evictionMessage: "The node was low on resource: memory. Threshold quantity: 100Mi, available:
 * 51200Ki. Container app was using 20Mi, request is 0, has larger consumption of memory. ", and the
 * eviction event's annotations: the containers over their request (offending_containers), their
 * usage (offending_containers_usage) and the resource (starved_resource), as the kubelet sets them
 * once it has the pod's stats.
 */
export function evictionMessage(
  resource: string,
  pod: Pod,
  stats: PodUsage | undefined,
  thresholdMet?: { quantity: string; available: bigint },
): { message: string; annotations: Record<string, string> } {
  let message = `The node was low on resource: ${resource}. `;
  if (thresholdMet) message += `Threshold quantity: ${thresholdMet.quantity}, available: ${bytes(thresholdMet.available)}. `;
  if (!stats) return { message, annotations: {} };
  const offending: string[] = [];
  const usages: string[] = [];
  for (const cs of stats.containers) {
    const container = pod.spec?.containers.find((c) => c.name === cs.name);
    if (!container) continue;
    const requests = resourceQuantity(container.resources?.requests as Record<string, string> | undefined, resource);
    let usage: bigint | undefined;
    if (resource === "memory") usage = cs.memory?.workingSetBytes;
    else if (resource === "ephemeral-storage" && cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined) usage = cs.rootfs.usedBytes + cs.logs.usedBytes;
    if (usage !== undefined && usage > requests.value()) {
      message += `Container ${container.name} was using ${bytes(usage)}, request is ${requests.toString()}, has larger consumption of ${resource}. `;
      offending.push(container.name);
      usages.push(bytes(usage));
    }
  }
  const annotations = { offending_containers: offending.join(","), offending_containers_usage: usages.join(","), starved_resource: resource };
  return { message, annotations };
}
