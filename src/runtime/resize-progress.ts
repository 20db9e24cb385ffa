/**
 * IsPodResizeInProgress (kuberuntime_manager.go): a running container's actuated CPU or memory
 * (what the runtime was last told) differs from its allocation. Containers not running do not
 * count: they get their allocation when they start. Pure.
 */
import { resourceQuantity, type Pod, type ResourceRequirements } from "../api/index.ts";
import { findContainerStatus, type RuntimePodStatus } from "../container/index.ts";
import type { ActuatedResources } from "./resize-actions.ts";

const same = (a: ResourceRequirements | undefined, b: ResourceRequirements | undefined) =>
  (["requests", "limits"] as const).every((kind) =>
    ["cpu", "memory"].every((name) => resourceQuantity(a?.[kind], name).equal(resourceQuantity(b?.[kind], name))),
  );

export function isPodResizeInProgress(allocatedPod: Pod, podStatus: RuntimePodStatus, actuated: ActuatedResources): boolean {
  const uid = allocatedPod.metadata.uid ?? "";
  return [...(allocatedPod.spec.initContainers ?? []), ...allocatedPod.spec.containers].some((c) => {
    const status = findContainerStatus(podStatus, c.name);
    if (status === undefined || status.state !== "running") return false;
    return !same(c.resources, actuated(uid, c.name));
  });
}
