/**
 * The evented PLEG's plan step: a CRI ContainerEventResponse carries the pod's sandbox status and
 * every container status, so the pod's new PodStatus is built from the event alone (the kubelet's
 * GeneratePodStatus) with no further CRI calls, and the event type decides the lifecycle events.
 * Pure.
 */
import {
  ContainerEventType,
  ContainerState as CriContainerState,
  NamespaceMode,
  PodSandboxState,
  labels,
  type ContainerEventResponse,
  type ContainerStatus,
  type PodSandboxStatus,
} from "../cri/index.ts";
import type { ContainerState, PodStatus, RuntimeContainerStatus, RuntimeSandboxStatus } from "../runtime/types.ts";
import type { PodLifecycleEvent } from "./types.ts";

/** CRI times are nanoseconds; bunlet's are milliseconds (sub-millisecond precision kept). */
export function nsToMs(ns: bigint): number {
  return Number(ns / 1000n) / 1000;
}

function containerState(state: CriContainerState): ContainerState {
  switch (state) {
    case CriContainerState.CONTAINER_CREATED:
      return "created";
    case CriContainerState.CONTAINER_RUNNING:
      return "running";
    case CriContainerState.CONTAINER_EXITED:
      return "exited";
    default:
      return "unknown";
  }
}

/** A labelled value the kubelet writes as an annotation; older writers used a label. */
function kubeletValue(status: { labels: Record<string, string>; annotations: Record<string, string> }, key: string): string {
  return status.annotations[key] ?? status.labels[key] ?? "";
}

export function sandboxIPs(sandbox: PodSandboxStatus): string[] {
  const network = sandbox.network;
  if (!network) return [];
  return [network.ip, ...network.additionalIps.map((p) => p.ip)].filter((ip) => ip !== "");
}

export function toRuntimeSandboxStatus(sandbox: PodSandboxStatus): RuntimeSandboxStatus {
  return {
    id: sandbox.id,
    state: sandbox.state === PodSandboxState.SANDBOX_READY ? "ready" : "notready",
    createdAt: nsToMs(sandbox.createdAt),
    attempt: sandbox.metadata?.attempt ?? 0,
    ips: sandboxIPs(sandbox),
    hostNetwork: sandbox.linux?.namespaces?.options?.network === NamespaceMode.NODE,
    name: sandbox.metadata?.name ?? "",
    namespace: sandbox.metadata?.namespace ?? "",
    uid: sandbox.metadata?.uid ?? "",
    labels: { ...sandbox.labels },
    annotations: { ...sandbox.annotations },
  };
}

export function toRuntimeContainerStatus(status: ContainerStatus, sandboxId: string): RuntimeContainerStatus {
  const restartCount = Number.parseInt(kubeletValue(status, labels.ContainerRestartCountLabel), 10);
  return {
    id: status.id,
    name: status.labels[labels.KubernetesContainerNameLabel] ?? status.metadata?.name ?? "",
    state: containerState(status.state),
    createdAt: nsToMs(status.createdAt),
    startedAt: nsToMs(status.startedAt),
    finishedAt: nsToMs(status.finishedAt),
    exitCode: status.exitCode,
    reason: status.reason,
    message: status.message,
    image: status.image?.image ?? "",
    imageRef: status.imageRef,
    hash: kubeletValue(status, labels.ContainerHashLabel),
    restartCount: Number.isFinite(restartCount) ? restartCount : 0,
    containerType: kubeletValue(status, labels.KubernetesContainerTypeLabel),
    sandboxId,
    logPath: status.logPath,
    annotations: { ...status.annotations },
    labels: { ...status.labels },
  };
}

/** The pod UID an event is about, or undefined when the runtime sent no sandbox metadata. */
export function eventPodUID(event: ContainerEventResponse): string | undefined {
  const uid = event.podSandboxStatus?.metadata?.uid;
  return uid ? uid : undefined;
}

/** The pod's status as the event describes it; undefined without sandbox metadata. */
export function podStatusFromEvent(event: ContainerEventResponse): PodStatus | undefined {
  const sandbox = event.podSandboxStatus;
  if (!sandbox?.metadata?.uid) return undefined;
  const containerStatuses = event.containersStatuses
    .map((c) => toRuntimeContainerStatus(c, sandbox.id))
    .sort((a, b) => b.createdAt - a.createdAt);
  return {
    uid: sandbox.metadata.uid,
    name: sandbox.metadata.name,
    namespace: sandbox.metadata.namespace,
    ips: sandboxIPs(sandbox),
    sandboxStatuses: [toRuntimeSandboxStatus(sandbox)],
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
