/**
 * Small pure rules that the runtime manager's plan, the status generator and the prober share:
 * restart policy, sidecars, sandbox freshness (kuberuntime/util PodSandboxChanged),
 * ShouldContainerBeRestarted (kubecontainer helpers) and container port references. Pod specs
 * may come without API defaults applied, so the defaults are applied here.
 */
import { isRestartableInitContainer, kObj, podRestartPolicy, type Container, type ContainerStatus, type ObjectRef, type Pod } from "../api/index.ts";
import { containerShouldRestart } from "./restart-rules.ts";
import { findContainerStatus, type RuntimePodStatus, type RuntimeContainerStatus } from "./types.ts";

/** restartPolicy != Never: failed containers come back. */
export function shouldRestartOnFailure(pod: Pod): boolean {
  return podRestartPolicy(pod) !== "Never";
}

/**
 * The API statuses of every container of the pod, regular, init and ephemeral, in the order the
 * kubelet's log and exec lookups search them (validateContainerLogStatus).
 */
export function allContainerStatuses(pod: Pod): ContainerStatus[] {
  const s = pod.status ?? {};
  return [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? []), ...(s.ephemeralContainerStatuses ?? [])];
}

/** Whether the pod's spec has a container of that name: regular, init or ephemeral. */
export function podHasContainer(pod: Pod, name: string): boolean {
  const spec = pod.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].some((c) => c.name === name);
}

export function hasRestartableInitContainer(pod: Pod): boolean {
  return (pod.spec.initContainers ?? []).some(isRestartableInitContainer);
}

export function isHostNetwork(pod: Pod): boolean {
  return pod.spec.hostNetwork === true;
}

/** An init container that did not succeed: exited non-zero, or in unknown state. */
export function isInitContainerFailed(status: RuntimeContainerStatus): boolean {
  if (status.state === "exited" && status.exitCode !== 0) return true;
  return status.state === "unknown";
}

export function containerSucceeded(container: Container, podStatus: RuntimePodStatus): boolean {
  const s = findContainerStatus(podStatus, container.name);
  return s !== undefined && s.state === "exited" && s.exitCode === 0;
}

/**
 * Whether the pod needs a new sandbox: none exists, several are ready, the newest is not ready,
 * its network namespace mode no longer matches hostNetwork, or a pod-network sandbox lost its IP.
 * attempt is the newest sandbox's attempt, +1 when a new one is needed.
 */
export function podSandboxChanged(pod: Pod, podStatus: RuntimePodStatus): { changed: boolean; attempt: number; sandboxId: string } {
  const newest = podStatus.sandboxStatuses[0];
  if (!newest) return { changed: true, attempt: 0, sandboxId: "" };
  const ready = podStatus.sandboxStatuses.filter((s) => s.state === "ready").length;
  const next = newest.attempt + 1;
  if (ready > 1) return { changed: true, attempt: next, sandboxId: newest.id };
  if (newest.state !== "ready") return { changed: true, attempt: next, sandboxId: newest.id };
  // The kubelet drops the id here: the old sandbox is of the wrong kind and is only killed.
  if (newest.hostNetwork !== isHostNetwork(pod)) return { changed: true, attempt: next, sandboxId: "" };
  if (!isHostNetwork(pod) && newest.ips.length === 0) return { changed: true, attempt: next, sandboxId: newest.id };
  return { changed: false, attempt: newest.attempt, sandboxId: newest.id };
}

/**
 * Whether a container that is not running should be started again (kubecontainer
 * ShouldContainerBeRestarted). An exited container follows its restart rules, then its own
 * restartPolicy (a sidecar's Always; ContainerRestartRules, on by default since 1.35), else the
 * pod's (containerShouldRestart).
 */
export function shouldContainerBeRestarted(container: Container, pod: Pod, podStatus: RuntimePodStatus): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const status = findContainerStatus(podStatus, container.name);
  if (!status) return true;
  if (status.state === "running") return false;
  if (status.state === "unknown" || status.state === "created") return true;
  return containerShouldRestart(container, pod, status.exitCode);
}

/**
 * A port number, a number in a string, or the name of one of the container's ports (the
 * kubelet's lifecycle resolvePort and probe ResolveContainerPort); undefined for an unknown name.
 */
export function resolveContainerPort(port: number | string, container: Pick<Container, "ports">): number | undefined {
  if (typeof port === "number") return port;
  const named = container.ports?.find((p) => p.name === port);
  if (named) return named.containerPort;
  return /^\d+$/.test(port) ? Number(port) : undefined;
}

/** A runtime pod or its status as logs name a pod (klog.KObj). */
export function runtimePodRef(pod: { namespace: string; name: string }): ObjectRef {
  return kObj(pod);
}
