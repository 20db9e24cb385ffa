/**
 * The labels and annotations bunlet writes on CRI sandboxes and containers, exactly as the kubelet
 * does (kuberuntime/labels.go), and their readers. They are the only memory that survives a bunlet
 * restart: restart counts, hashes, grace periods and preStop hooks of orphans are read back here.
 */
import { DefaultTerminationGracePeriodSeconds, type Container, type ContainerPort, type LifecycleHandler, type Pod } from "../api/index.ts";
import { labels as L } from "../cri/index.ts";
import { hashContainer } from "./hash.ts";

export type ContainerKind = "init" | "container" | "ephemeral";

export const DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";

export function newPodLabels(pod: Pod): Record<string, string> {
  return {
    ...(pod.metadata.labels ?? {}),
    [L.KubernetesPodNameLabel]: pod.metadata.name ?? "",
    [L.KubernetesPodNamespaceLabel]: pod.metadata.namespace ?? "",
    [L.KubernetesPodUIDLabel]: pod.metadata.uid ?? "",
  };
}

export function newPodAnnotations(pod: Pod): Record<string, string> {
  return { ...(pod.metadata.annotations ?? {}) };
}

/** Pod labels are not copied onto containers (as upstream); the type label is ours, for status. */
export function newContainerLabels(container: Container, pod: Pod, kind: ContainerKind): Record<string, string> {
  return {
    [L.KubernetesPodNameLabel]: pod.metadata.name ?? "",
    [L.KubernetesPodNamespaceLabel]: pod.metadata.namespace ?? "",
    [L.KubernetesPodUIDLabel]: pod.metadata.uid ?? "",
    [L.KubernetesContainerNameLabel]: container.name,
    [L.KubernetesContainerTypeLabel]: kind,
  };
}

export function newContainerAnnotations(container: Container, pod: Pod, restartCount: number): Record<string, string> {
  const a: Record<string, string> = {
    [L.ContainerHashLabel]: hashContainer(container),
    [L.ContainerRestartCountLabel]: String(restartCount),
    [L.ContainerTerminationMessagePathLabel]: container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH,
    [L.ContainerTerminationMessagePolicyLabel]: container.terminationMessagePolicy ?? "File",
  };
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    a[L.PodDeletionGracePeriodLabel] = String(pod.metadata.deletionGracePeriodSeconds);
  }
  a[L.PodTerminationGracePeriodLabel] = String(pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds);
  if (container.lifecycle?.preStop) a[L.ContainerPreStopHandlerLabel] = JSON.stringify(container.lifecycle.preStop);
  if (container.ports?.length) a[L.ContainerPortsLabel] = JSON.stringify(container.ports);
  return a;
}

/** What a container's labels say about its pod. */
export interface LabeledContainerInfo {
  podName: string;
  podNamespace: string;
  podUid: string;
  containerName: string;
  containerType: string;
}

export function containerInfoFromLabels(labels: Record<string, string>): LabeledContainerInfo {
  return {
    podName: labels[L.KubernetesPodNameLabel] ?? "",
    podNamespace: labels[L.KubernetesPodNamespaceLabel] ?? "",
    podUid: labels[L.KubernetesPodUIDLabel] ?? "",
    containerName: labels[L.KubernetesContainerNameLabel] ?? "",
    containerType: labels[L.KubernetesContainerTypeLabel] ?? "",
  };
}

/** What a container's annotations say; missing or malformed values read as 0 / undefined / "". */
export interface AnnotatedContainerInfo {
  hash: string;
  restartCount: number;
  podDeletionGracePeriod?: number;
  podTerminationGracePeriod?: number;
  terminationMessagePath: string;
  terminationMessagePolicy: string;
  preStopHandler?: LifecycleHandler;
  containerPorts?: ContainerPort[];
}

export function containerInfoFromAnnotations(annotations: Record<string, string>): AnnotatedContainerInfo {
  return {
    hash: annotations[L.ContainerHashLabel] ?? "",
    restartCount: intOr(annotations[L.ContainerRestartCountLabel], 0) ?? 0,
    podDeletionGracePeriod: intOr(annotations[L.PodDeletionGracePeriodLabel], undefined),
    podTerminationGracePeriod: intOr(annotations[L.PodTerminationGracePeriodLabel], undefined),
    terminationMessagePath: annotations[L.ContainerTerminationMessagePathLabel] ?? "",
    terminationMessagePolicy: annotations[L.ContainerTerminationMessagePolicyLabel] ?? "",
    preStopHandler: jsonOr<LifecycleHandler>(annotations[L.ContainerPreStopHandlerLabel]),
    containerPorts: jsonOr<ContainerPort[]>(annotations[L.ContainerPortsLabel]),
  };
}

function intOr<T extends number | undefined>(raw: string | undefined, fallback: T): number | T {
  if (raw === undefined || !/^-?\d+$/.test(raw)) return fallback;
  return Number.parseInt(raw, 10);
}

function jsonOr<T>(raw: string | undefined): T | undefined {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}
