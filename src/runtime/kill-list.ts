import type { RuntimeContainerStatus } from "../container/index.ts";
import type { ContainerToKill, KillReason, PodActions } from "./actions-types.ts";

/** Records a container to kill once (the kubelet keys this by container id). */
export function addKill(changes: PodActions, status: RuntimeContainerStatus, message: string, reason: KillReason): void {
  const entry: ContainerToKill = { id: status.id, name: status.name, message, reason };
  const at = changes.containersToKill.findIndex((k) => k.id === status.id);
  if (at >= 0) changes.containersToKill[at] = entry;
  else changes.containersToKill.push(entry);
}
