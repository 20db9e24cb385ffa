/**
 * The pod's QoS class (pkg/apis/core/v1/helper/qos ComputePodQOS, 1.37): per container and per
 * resource (cpu, memory), a request equal to a non-zero limit is Guaranteed, both zero (or
 * absent) is BestEffort, anything else Burstable; the pod is Guaranteed or BestEffort only when
 * every init and regular container is. It reads the pod as the apiserver defaulted it (requests
 * copied from limits), as the kubelet does.
 */
import { resourceQuantity } from "./quantity.ts";
import type { Pod, ResourceRequirements } from "./v1.ts";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

const qosComputeResources = ["cpu", "memory"] as const;

function resourceQOS(resources: ResourceRequirements, name: string): QOSClass {
  const request = resourceQuantity(resources.requests, name);
  const limit = resourceQuantity(resources.limits, name);
  if (!request.equal(limit)) return "Burstable";
  return request.isZero() ? "BestEffort" : "Guaranteed";
}

function requirementsQOS(resources: ResourceRequirements | undefined): QOSClass {
  const count = Object.keys(resources?.requests ?? {}).length + Object.keys(resources?.limits ?? {}).length;
  if (!resources || count === 0) return "BestEffort";
  return combine(qosComputeResources.map((name) => resourceQOS(resources, name)));
}

/** Burstable if any is Burstable or they differ; otherwise the one class they share. */
function combine(classes: QOSClass[]): QOSClass {
  let qos: QOSClass | undefined;
  for (const c of classes) {
    if (c === "Burstable") return c;
    if (qos !== undefined && qos !== c) return "Burstable";
    qos = c;
  }
  return qos ?? "BestEffort";
}

/** IsPodLevelResourcesSet: spec.resources names cpu, memory or hugepages. */
function podLevelResourcesSet(pod: Pod): boolean {
  const r = pod.spec.resources;
  const names = [...Object.keys(r?.requests ?? {}), ...Object.keys(r?.limits ?? {})];
  return names.some((n) => n === "cpu" || n === "memory" || n.startsWith("hugepages-"));
}

export function computePodQOS(pod: Pod): QOSClass {
  // PodLevelResources (on by default): pod-level requests and limits decide alone.
  if (podLevelResourcesSet(pod)) return requirementsQOS(pod.spec.resources);
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  return combine(containers.map((c) => requirementsQOS(c.resources)));
}
