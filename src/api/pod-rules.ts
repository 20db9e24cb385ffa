/**
 * Pod rules that several subsystems apply and that must agree (the kubelet's pkg/kubelet/types
 * and podutil helpers): which pods are critical, which init containers are sidecars, and the
 * restart policy a pod runs under when its spec leaves it out. Written once here; the runtime
 * (OOM scores), the eviction manager, graceful shutdown, admission, validation and the status
 * generator all read them from api.
 */
import { ConfigMirrorAnnotationKey, isStaticPod, type Container, type Pod, type RestartPolicy } from "./v1.ts";

/** scheduling.SystemCriticalPriority: a priority at or above it is system-critical. */
export const SystemCriticalPriority = 2_000_000_000;

/** scheduling.SystemNodeCritical, the priority class of pods a node cannot do without. */
const SystemNodeCritical = "system-node-critical";

/** The API default of spec.restartPolicy (pkg/apis/core/v1 SetDefaults_PodSpec). */
export const DefaultRestartPolicy: RestartPolicy = "Always";

/** A mirror pod: the apiserver's copy of a static pod (types.IsMirrorPod). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[ConfigMirrorAnnotationKey] !== undefined;
}

/** types.IsCriticalPodBasedOnPriority; a pod without a priority has 0. */
export function isCriticalPodBasedOnPriority(priority: number | undefined): boolean {
  return (priority ?? 0) >= SystemCriticalPriority;
}

/**
 * types.IsCriticalPod: static pods, mirror pods and pods of system-critical priority. `isStatic`
 * is the static-pod test, the config source by default; the eviction manager passes false for
 * static pods when evictStaticPods (bunlet) lets them be evicted.
 */
export function isCriticalPod(pod: Pod, isStatic: boolean = isStaticPod(pod)): boolean {
  return isStatic || isMirrorPod(pod) || isCriticalPodBasedOnPriority(pod.spec?.priority);
}

/** types.IsNodeCriticalPod: critical, and of the system-node-critical priority class. */
export function isNodeCriticalPod(pod: Pod): boolean {
  return isCriticalPod(pod) && pod.spec?.priorityClassName === SystemNodeCritical;
}

/** podutil.IsRestartableInitContainer: an init container with restartPolicy Always, a sidecar. */
export function isRestartableInitContainer(initContainer: Container): boolean {
  return initContainer.restartPolicy === "Always";
}

/**
 * Whether a container of the pod is a sidecar (qos isSidecarContainer): restartPolicy Always and
 * one of the init containers. A regular container may carry a restartPolicy too
 * (ContainerRestartRules) and is no sidecar for it.
 */
export function isSidecarContainer(pod: Pod, container: Container): boolean {
  return isRestartableInitContainer(container) && (pod.spec?.initContainers ?? []).some((c) => c.name === container.name);
}

/** The pod's restartPolicy, the API default when the spec leaves it out (a manifest not yet defaulted). */
export function podRestartPolicy(pod: Pod): RestartPolicy {
  return pod.spec?.restartPolicy ?? DefaultRestartPolicy;
}
