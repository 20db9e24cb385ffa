/**
 * CRI objects → bunlet's runtime view (types.ts), the one converter both the runtime manager's
 * views and the evented PLEG use. Times arrive as nanoseconds (bigint) and leave as milliseconds;
 * identity comes from the kubelet labels, restart count and hash from annotations.
 */
import {
  ContainerState as CriContainerState,
  NamespaceMode,
  PodSandboxState,
  labels as L,
  type Container as CriContainer,
  type ContainerStatus as CriContainerStatus,
  type PodSandbox,
  type PodSandboxStatus,
} from "../cri/index.ts";
import { containerInfoFromAnnotations, containerInfoFromLabels } from "./labels.ts";
import type { ContainerState, RuntimeContainerRef, RuntimeContainerStatus, RuntimePod, RuntimePodStatus, RuntimeSandboxStatus } from "./types.ts";

/**
 * Milliseconds with the microseconds kept as a fraction: the evented PLEG stamps the pod cache
 * with an event's own time, and two runtime changes within one millisecond must still order.
 * (A double holds epoch microseconds exactly; nanoseconds would not fit.)
 */
export function nanosToMs(ns: bigint): number {
  return Number(ns / 1000n) / 1000;
}

function toContainerState(state: CriContainerState): ContainerState {
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

/** A sandbox counts as a running container while ready (kubecontainer.SandboxToContainerState). */
function sandboxContainerState(state: PodSandboxState): ContainerState {
  if (state === PodSandboxState.SANDBOX_READY) return "running";
  if (state === PodSandboxState.SANDBOX_NOTREADY) return "exited";
  return "unknown";
}

/** Primary IP first; empty entries dropped. */
export function sandboxIPs(status: PodSandboxStatus): string[] {
  const ips = [status.network?.ip ?? "", ...(status.network?.additionalIps ?? []).map((p) => p.ip)];
  return ips.filter((ip) => ip !== "");
}

export function toSandboxStatus(s: PodSandboxStatus): RuntimeSandboxStatus {
  return {
    id: s.id,
    state: s.state === PodSandboxState.SANDBOX_READY ? "ready" : "notready",
    createdAt: nanosToMs(s.createdAt),
    attempt: s.metadata?.attempt ?? 0,
    ips: sandboxIPs(s),
    hostNetwork: s.linux?.namespaces?.options?.network === NamespaceMode.NODE,
    name: s.metadata?.name ?? "",
    namespace: s.metadata?.namespace ?? "",
    uid: s.metadata?.uid ?? "",
    labels: { ...s.labels },
    annotations: { ...s.annotations },
  };
}

/** The runtime's status of one container (the termination message is added by the caller). */
export function toContainerStatus(s: CriContainerStatus, sandboxId = ""): RuntimeContainerStatus {
  const labeled = containerInfoFromLabels(s.labels);
  const annotated = containerInfoFromAnnotations(s.annotations);
  const state = toContainerState(s.state);
  const exited = state === "exited";
  return {
    id: s.id,
    name: labeled.containerName || (s.metadata?.name ?? ""),
    state,
    createdAt: nanosToMs(s.createdAt),
    // A created container was never started; every other state has tried.
    startedAt: state === "created" ? 0 : nanosToMs(s.startedAt),
    finishedAt: exited ? nanosToMs(s.finishedAt) : 0,
    exitCode: exited ? s.exitCode : 0,
    reason: exited ? s.reason : "",
    message: exited ? s.message : "",
    image: s.image?.image ?? "",
    imageRef: s.imageId || s.imageRef,
    hash: annotated.hash,
    restartCount: annotated.restartCount,
    containerType: labeled.containerType,
    sandboxId,
    logPath: s.logPath,
    annotations: { ...s.annotations },
    labels: { ...s.labels },
    ...(s.resources?.linux && {
      resources: {
        cpuShares: s.resources.linux.cpuShares,
        cpuQuota: s.resources.linux.cpuQuota,
        cpuPeriod: s.resources.linux.cpuPeriod,
        memoryLimitInBytes: s.resources.linux.memoryLimitInBytes,
      },
    }),
  };
}

export function containerRef(c: CriContainer): RuntimeContainerRef {
  return {
    id: c.id,
    name: containerInfoFromLabels(c.labels).containerName || (c.metadata?.name ?? ""),
    state: toContainerState(c.state),
    createdAt: nanosToMs(c.createdAt),
    hash: containerInfoFromAnnotations(c.annotations).hash,
    sandboxId: c.podSandboxId,
    image: c.image?.image ?? "",
  };
}

export function sandboxRef(s: PodSandbox): RuntimeContainerRef {
  return {
    id: s.id,
    name: L.PodInfraContainerName,
    state: sandboxContainerState(s.state),
    createdAt: nanosToMs(s.createdAt),
    hash: "",
    sandboxId: s.id,
    image: "",
  };
}

/** The running part of a pod status, for killPod (kubecontainer.ConvertPodStatusToRunningPod). */
export function runningPodFromStatus(status: RuntimePodStatus): RuntimePod {
  return {
    uid: status.uid,
    name: status.name,
    namespace: status.namespace,
    sandboxes: status.sandboxStatuses.map((s) => ({
      id: s.id,
      name: L.PodInfraContainerName,
      state: s.state === "ready" ? "running" : "exited",
      createdAt: s.createdAt,
      hash: "",
      sandboxId: s.id,
      image: "",
    })),
    containers: status.containerStatuses
      .filter((c) => c.state === "running")
      .map((c) => ({ id: c.id, name: c.name, state: c.state, createdAt: c.createdAt, hash: c.hash, sandboxId: c.sandboxId, image: c.image })),
  };
}
