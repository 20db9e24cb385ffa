/**
 * computePodResizeAction (kuberuntime_manager.go): for a running container whose allocated
 * resources (the pod the worker syncs carries them) differ from what the runtime was last told
 * (the actuated resources), either an in-place update per resource, ordered so decreases go
 * before increases, or, when the container's resizePolicy says RestartContainer for a resource
 * that changes, a restart. Pure.
 */
import { resourceQuantity, type Container, type Pod, type ResourceRequirements } from "../api/index.ts";
import type { RuntimeContainerStatus } from "../container/index.ts";
import type { PodActions } from "./actions-types.ts";
import { addKill } from "./kill-list.ts";

/** A container's CPU (millicores) and memory (bytes), as resize compares them. */
export interface ResourceValues {
  memoryLimit: bigint;
  memoryRequest: bigint;
  cpuLimit: bigint;
  cpuRequest: bigint;
}

export interface ContainerToUpdate {
  container: Container;
  /** CRI container id. */
  id: string;
  desired: ResourceValues;
  /** Shared by the container's memory and CPU entries: updated as each is applied. */
  current: ResourceValues;
}

/** Per resource, in the order the updates are applied (decreases first). */
export interface ContainersToUpdate {
  memory: ContainerToUpdate[];
  cpu: ContainerToUpdate[];
}

/** What the runtime was last told for each container (the actuated checkpoint). */
export type ActuatedResources = (uid: string, containerName: string) => ResourceRequirements | undefined;

export function resourceValues(r: ResourceRequirements | undefined): ResourceValues {
  return {
    memoryLimit: resourceQuantity(r?.limits, "memory").value(),
    memoryRequest: resourceQuantity(r?.requests, "memory").value(),
    cpuLimit: resourceQuantity(r?.limits, "cpu").milliValue(),
    cpuRequest: resourceQuantity(r?.requests, "cpu").milliValue(),
  };
}

export const sameResourceValues = (a: ResourceValues, b: ResourceValues) =>
  a.memoryLimit === b.memoryLimit && a.memoryRequest === b.memoryRequest && a.cpuLimit === b.cpuLimit && a.cpuRequest === b.cpuRequest;

/**
 * Returns whether to keep the container running (true) or restart it (false: it is in the kill
 * list, and the caller puts it in its start list). Non-running containers are started with their
 * allocation anyway. `idx` points into the init containers when `init` is set (a running init
 * container or sidecar is resizable since InPlacePodVerticalScalingInitContainers went GA).
 */
export function computePodResizeAction(
  pod: Pod,
  idx: number,
  init: boolean,
  status: RuntimeContainerStatus,
  actuated: ActuatedResources,
  changes: PodActions,
): boolean {
  if (status.state !== "running") return true;
  const container = (init ? pod.spec.initContainers! : pod.spec.containers)[idx]!;
  const desired = resourceValues(container.resources);
  // A missing record counts as zero (the kubelet logs it): an update to the allocation is idempotent.
  const current = resourceValues(actuated(pod.metadata.uid ?? "", container.name));
  if (sameResourceValues(desired, current)) return true;

  const policyOf = (resource: string) => container.resizePolicy?.find((p) => p.resourceName === resource)?.restartPolicy ?? "NotRequired";
  const decide = (resource: string, want: bigint, have: bigint) => ({ resize: want !== have, restart: want !== have && policyOf(resource) === "RestartContainer" });
  const memLim = decide("memory", desired.memoryLimit, current.memoryLimit);
  const memReq = decide("memory", desired.memoryRequest, current.memoryRequest);
  const cpuLim = decide("cpu", desired.cpuLimit, current.cpuLimit);
  const cpuReq = decide("cpu", desired.cpuRequest, current.cpuRequest);

  if (memLim.restart || memReq.restart || cpuLim.restart || cpuReq.restart) {
    addKill(changes, status, `Container ${container.name} resize requires restart`, "");
    changes.updatePodResources = true;
    return false;
  }
  const updates = (changes.containersToUpdate ??= { memory: [], cpu: [] });
  const entry: ContainerToUpdate = { container, id: status.id, desired, current };
  const mark = (list: ContainerToUpdate[], want: bigint, have: bigint) => {
    if (want > have) list.push(entry);
    else if (want < have) list.unshift(entry);
  };
  if (memLim.resize) mark(updates.memory, desired.memoryLimit, current.memoryLimit);
  else if (memReq.resize) mark(updates.memory, desired.memoryRequest, current.memoryRequest);
  if (cpuLim.resize) mark(updates.cpu, desired.cpuLimit, current.cpuLimit);
  else if (cpuReq.resize) mark(updates.cpu, desired.cpuRequest, current.cpuRequest);
  return true;
}
