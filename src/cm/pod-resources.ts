/**
 * A pod's requests and limits as the kubelet sums them for its pod cgroup (component-helpers
 * resource.PodRequests / PodLimits): regular containers plus sidecars (restartable init
 * containers), or an init container with the sidecars started before it when that is more;
 * pod-level `spec.resources` (PodLevelResources) replaces the sums for cpu, memory and hugepages;
 * RuntimeClass overhead is added to requests, and to limits only where a limit is set. CPU is
 * held in millicores, every other resource in its integer value.
 */
import { Quantity, resourceQuantity, type Container, type Pod } from "../api/index.ts";

export type ResourceAmounts = Map<string, bigint>;

const HUGEPAGES_PREFIX = "hugepages-";

function amounts(list: Readonly<Record<string, string | number>> | undefined): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const name of Object.keys(list ?? {})) {
    const q = resourceQuantity(list, name);
    out.set(name, name === "cpu" ? q.milliValue() : q.value());
  }
  return out;
}

function addInto(into: ResourceAmounts, more: ResourceAmounts): void {
  for (const [name, n] of more) into.set(name, (into.get(name) ?? 0n) + n);
}

function maxInto(into: ResourceAmounts, other: ResourceAmounts): void {
  for (const [name, n] of other) if (n > (into.get(name) ?? 0n) || !into.has(name)) into.set(name, n);
}

const isSidecar = (c: Container) => c.restartPolicy === "Always";

/** aggregateContainerResourcesByFn over requests or limits of the spec. */
function aggregate(pod: Pod, of: (c: Container) => Readonly<Record<string, string | number>> | undefined): ResourceAmounts {
  const result: ResourceAmounts = new Map();
  for (const c of pod.spec.containers) addInto(result, amounts(of(c)));
  const sidecars: ResourceAmounts = new Map();
  const initMax: ResourceAmounts = new Map();
  for (const c of pod.spec.initContainers ?? []) {
    const own = amounts(of(c));
    if (isSidecar(c)) {
      addInto(result, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const combined = new Map(own);
      addInto(combined, sidecars);
      maxInto(initMax, combined);
    }
  }
  maxInto(result, initMax);
  return result;
}

const isPodLevelResource = (name: string) => name === "cpu" || name === "memory" || name.startsWith(HUGEPAGES_PREFIX);

/** IsPodLevelResourcesSet: spec.resources names cpu, memory or hugepages. */
export function isPodLevelResourcesSet(pod: Pod): boolean {
  const r = pod.spec.resources;
  return [...Object.keys(r?.requests ?? {}), ...Object.keys(r?.limits ?? {})].some(isPodLevelResource);
}

function applyPodLevel(into: ResourceAmounts, list: Readonly<Record<string, string | number>> | undefined): void {
  for (const [name, n] of amounts(list)) if (isPodLevelResource(name)) into.set(name, n);
}

export function podRequests(pod: Pod): ResourceAmounts {
  const reqs = aggregate(pod, (c) => c.resources?.requests);
  const podLevel = pod.spec.resources?.requests;
  if (Object.keys(podLevel ?? {}).some(isPodLevelResource)) applyPodLevel(reqs, podLevel);
  if (pod.spec.overhead) addInto(reqs, amounts(pod.spec.overhead));
  return reqs;
}

export function podLimits(pod: Pod): ResourceAmounts {
  const limits = aggregate(pod, (c) => c.resources?.limits);
  if (isPodLevelResourcesSet(pod)) applyPodLevel(limits, pod.spec.resources?.limits);
  for (const [name, n] of amounts(pod.spec.overhead)) {
    const limit = limits.get(name);
    if (limit !== undefined && limit !== 0n) limits.set(name, limit + n);
  }
  return limits;
}

/** HugePageLimits: page size in bytes → bytes, from `hugepages-<size>` entries. */
export function hugePageLimits(list: ResourceAmounts): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  for (const [name, n] of list) {
    if (!name.startsWith(HUGEPAGES_PREFIX)) continue;
    let size: bigint;
    try {
      size = Quantity.fromJSON(name.slice(HUGEPAGES_PREFIX.length)).value();
    } catch {
      continue; // validation keeps such names out; a stray one limits nothing
    }
    out.set(size, (out.get(size) ?? 0n) + n);
  }
  return out;
}
