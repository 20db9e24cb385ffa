/**
 * The objects events are about (ref.GetReference and kubecontainer.GenerateContainerRef): the pod
 * itself, or one of its containers named by fieldPath `spec.containers{name}`,
 * `spec.initContainers{name}` or `spec.ephemeralContainers{name}`, which `kubectl describe`
 * prints before the message.
 */
import type { ObjectReference } from "kubernetes-types/core/v1";
import type { Container, Pod } from "../api/index.ts";

/** The node as the kubelet names it in events: kind Node, its name as name and UID, no namespace. */
export function nodeReference(nodeName: string): ObjectReference {
  return { kind: "Node", name: nodeName, uid: nodeName, namespace: "" };
}

export function podReference(pod: Pod): ObjectReference {
  const { name, namespace, uid, resourceVersion } = pod.metadata;
  return { kind: "Pod", apiVersion: "v1", namespace, name, uid, resourceVersion };
}

/** The container's reference; undefined when the container is not in the pod's spec (an orphan's), which gets no event. */
export function containerReference(pod: Pod, container: Pick<Container, "name">): ObjectReference | undefined {
  const field = pod.spec.containers.some((c) => c.name === container.name)
    ? "spec.containers"
    : pod.spec.initContainers?.some((c) => c.name === container.name)
      ? "spec.initContainers"
      : pod.spec.ephemeralContainers?.some((c) => c.name === container.name)
        ? "spec.ephemeralContainers"
        : undefined;
  return field ? { ...podReference(pod), fieldPath: `${field}{${container.name}}` } : undefined;
}
