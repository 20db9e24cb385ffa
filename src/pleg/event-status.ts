/**
 * The evented PLEG's plan step: a CRI ContainerEventResponse carries the pod's sandbox status and
 * every container status, so the pod's new runtime status is built from the event alone (the kubelet's
 * GeneratePodStatus) with no further CRI calls, and the event type decides the lifecycle events.
 * The CRI objects go through the runtime manager's converters, so an event and a relist describe
 * a container the same way (times, hash, restart count, image ref). Pure.
 */
import { ContainerEventType, type ContainerEventResponse } from "../cri/index.ts";
import { sandboxIPs, toContainerStatus, toSandboxStatus, type RuntimePodStatus } from "../container/index.ts";
import type { PodLifecycleEvent } from "./types.ts";

/** The pod's status as the event describes it; undefined without sandbox metadata. */
export function podStatusFromEvent(event: ContainerEventResponse): RuntimePodStatus | undefined {
  const sandbox = event.podSandboxStatus;
  if (!sandbox?.metadata?.uid) return undefined;
  // Newest first, compared on nanoseconds as the runtime's getPodStatus does.
  const containerStatuses = [...event.containersStatuses]
    .sort((a, b) => (b.createdAt > a.createdAt ? 1 : b.createdAt < a.createdAt ? -1 : 0))
    .map((c) => toContainerStatus(c, sandbox.id));
  return {
    uid: sandbox.metadata.uid,
    name: sandbox.metadata.name,
    namespace: sandbox.metadata.namespace,
    ips: sandboxIPs(sandbox),
    sandboxStatuses: [toSandboxStatus(sandbox)],
    containerStatuses,
  };
}

/** CREATED only refreshes the cache; DELETED reports the death too, as a relist would. */
export function lifecycleEventsFor(uid: string, event: ContainerEventResponse): PodLifecycleEvent[] {
  const data = event.containerId;
  switch (event.containerEventType) {
    case ContainerEventType.CONTAINER_STARTED_EVENT:
      return [{ id: uid, type: "ContainerStarted", data }];
    case ContainerEventType.CONTAINER_STOPPED_EVENT:
      return [{ id: uid, type: "ContainerDied", data }];
    case ContainerEventType.CONTAINER_DELETED_EVENT:
      return [
        { id: uid, type: "ContainerDied", data },
        { id: uid, type: "ContainerRemoved", data },
      ];
    default:
      return [];
  }
}
