/**
 * Local storage limits (eviction_manager.go localStorageEviction, on since LocalStorageCapacityIsolation
 * went GA): a pod whose ephemeral storage exceeds the sum of its containers' ephemeral-storage
 * limits, or a container whose writable layer and logs exceed its own limit, is evicted whatever
 * the node's thresholds say. The pod's usage is the Summary's, which counts its managed
 * /etc/hosts (CVE-2020-8557: a pod wrote past its limit through that file, unseen).
 * emptyDir sizeLimit is not enforced: bunlet's Summary has no volume stats yet.
 */
import { isRestartableInitContainer, Quantity, resourceQuantity, type Container, type Pod } from "../api/index.ts";
import type { PodUsage } from "./rank.ts";

/** The eviction_signal label of kubelet_evictions for each kind of limit. */
export type LocalStorageSignal = "ephemeralpodfs.limit" | "ephemeralcontainerfs.limit";

export interface LocalStorageViolation {
  signal: LocalStorageSignal;
  message: string;
}

const EPHEMERAL = "ephemeral-storage";

function limitOf(c: Container): Quantity | undefined {
  const limits = c.resources?.limits as Record<string, string> | undefined;
  if (limits?.[EPHEMERAL] === undefined) return undefined;
  const q = resourceQuantity(limits, EPHEMERAL);
  return q.isZero() ? undefined : q;
}


/** resourcehelper.PodLimits for ephemeral storage: app containers and sidecars add up, an init container counts if larger. */
function podLimit(pod: Pod): Quantity | undefined {
  const running = [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter(isRestartableInitContainer)];
  const present = running.map(limitOf).filter((q): q is Quantity => q !== undefined);
  const inits = (pod.spec.initContainers ?? []).filter((c) => !isRestartableInitContainer(c)).map(limitOf).filter((q): q is Quantity => q !== undefined);
  if (present.length === 0 && inits.length === 0) return undefined;
  let limit = present.length === 1 ? present[0]! : Quantity.of(present.reduce((a, q) => a + q.value(), 0n), present[0]?.format ?? "BinarySI");
  for (const init of inits) if (init.cmp(limit) > 0) limit = init;
  return limit;
}

/** Whether any of the pod's containers (init containers included) has an ephemeral-storage limit to check. */
export function hasLocalStorageLimit(pod: Pod): boolean {
  return pod.spec.containers.some((c) => limitOf(c) !== undefined) || (pod.spec.initContainers ?? []).some((c) => limitOf(c) !== undefined);
}

/** The first limit the pod breaks, in the kubelet's order (pod total, then each container), or undefined. */
export function localStorageViolation(pod: Pod, stats: PodUsage): LocalStorageViolation | undefined {
  const limit = podLimit(pod);
  const used = stats[EPHEMERAL]?.usedBytes;
  if (limit && used !== undefined && used > limit.value()) {
    return { signal: "ephemeralpodfs.limit", message: `Pod ephemeral local storage usage exceeds the total limit of containers ${limit}. ` };
  }
  const limits = new Map<string, Quantity>();
  for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter(isRestartableInitContainer)]) {
    const q = limitOf(c);
    if (q) limits.set(c.name, q);
  }
  for (const cs of stats.containers) {
    const containerLimit = limits.get(cs.name);
    if (!containerLimit) continue;
    const usage = (cs.logs?.usedBytes ?? 0n) + (cs.rootfs?.usedBytes ?? 0n);
    if (usage > containerLimit.value()) {
      return { signal: "ephemeralcontainerfs.limit", message: `Container ${cs.name} exceeded its local ephemeral storage limit ${JSON.stringify(String(containerLimit))}. ` };
    }
  }
  return undefined;
}
