/**
 * The pod conditions the kubelet owns (pkg/kubelet/status/generate.go): PodReadyToStartContainers,
 * Initialized, Ready, ContainersReady and PodScheduled, computed from the API container statuses
 * (with ready/started already filled in) and the phase. Pure functions; transition times are
 * added by the caller.
 */
import type { ContainerStatus, Pod, PodCondition, PodPhase } from "../api/index.ts";
import { isRestartableInitContainer, podSandboxChanged, type RuntimePodStatus } from "../container/index.ts";
import { hasAnyRegularContainerStarted } from "./phase.ts";
import { PodResizeInProgress, PodResizePending } from "./resize-conditions.ts";

const UnknownContainerStatuses = "UnknownContainerStatuses";
const PodCompleted = "PodCompleted";
const PodFailed = "PodFailed";
const ContainersNotReady = "ContainersNotReady";
const ContainersNotInitialized = "ContainersNotInitialized";
const ReadinessGatesNotReady = "ReadinessGatesNotReady";

const PodScheduled = "PodScheduled";
const PodReady = "Ready";
const PodInitialized = "Initialized";
const ContainersReady = "ContainersReady";
const PodReadyToStartContainers = "PodReadyToStartContainers";
export const DisruptionTarget = "DisruptionTarget";

/** The in-place resize conditions: the status manager sets them, with their own times. */
export const resizeConditionTypes: ReadonlySet<string> = new Set([PodResizePending, PodResizeInProgress]);

/** Conditions only the kubelet writes (kubetypes.PodConditionByKubelet). */
export const kubeletOwnedConditions: ReadonlySet<string> = new Set([
  PodScheduled,
  PodReady,
  PodInitialized,
  ContainersReady,
  PodReadyToStartContainers,
  ...resizeConditionTypes,
]);

function condition(type: string, ok: boolean, reason = "", message = ""): PodCondition {
  const c: PodCondition = { type, status: ok ? "True" : "False" };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/** Go's fmt of a []string: "[a b]". */
function list(names: string[]): string {
  return `[${names.join(" ")}]`;
}

function byName(statuses: ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

function terminalReason(phase: PodPhase): string {
  return phase === "Failed" ? PodFailed : PodCompleted;
}

/**
 * ContainersReady: every regular container and sidecar is ready. `statuses` holds init and
 * regular container statuses together; undefined means "not known at all".
 */
export function generateContainersReadyCondition(pod: Pod, statuses: ContainerStatus[] | undefined, phase: PodPhase): PodCondition {
  if (statuses === undefined) return condition(ContainersReady, false, UnknownContainerStatuses);
  const unknown: string[] = [];
  const unready: string[] = [];
  const relevant = [...(pod.spec.initContainers ?? []).filter(isRestartableInitContainer), ...pod.spec.containers];
  for (const container of relevant) {
    const status = byName(statuses, container.name);
    if (status === undefined) unknown.push(container.name);
    else if (!status.ready) unready.push(container.name);
  }
  if ((phase === "Succeeded" && unknown.length === 0) || phase === "Failed") {
    return condition(ContainersReady, false, terminalReason(phase));
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${list(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${list(unready)}`);
  if (messages.length > 0) return condition(ContainersReady, false, ContainersNotReady, messages.join(", "));
  return condition(ContainersReady, true);
}

/** Ready: ContainersReady, and every readiness gate's condition is True. */
export function generatePodReadyCondition(
  pod: Pod,
  conditions: PodCondition[],
  statuses: ContainerStatus[] | undefined,
  phase: PodPhase,
): PodCondition {
  const containersReady = generateContainersReadyCondition(pod, statuses, phase);
  if (containersReady.status !== "True") return { ...containersReady, type: PodReady };
  const messages: string[] = [];
  for (const gate of pod.spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (c === undefined) messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== "True") messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (messages.length > 0) return condition(PodReady, false, ReadinessGatesNotReady, messages.join(", "));
  return condition(PodReady, true);
}

/** Initialized: every regular init container succeeded (Ready) and every sidecar started. */
export function generatePodInitializedCondition(pod: Pod, statuses: ContainerStatus[] | undefined, phase: PodPhase): PodCondition {
  const initContainers = pod.spec.initContainers ?? [];
  if (statuses === undefined && initContainers.length > 0) return condition(PodInitialized, false, UnknownContainerStatuses);
  const known = statuses ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const container of initContainers) {
    const status = byName(known, container.name);
    if (status === undefined) unknown.push(container.name);
    else if (isRestartableInitContainer(container) ? status.started !== true : !status.ready) incomplete.push(container.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) return condition(PodInitialized, true, PodCompleted);
  // Once a regular container ran, the pod was initialized, even while a sidecar restarts.
  if (hasAnyRegularContainerStarted(pod, known)) return condition(PodInitialized, true);
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${list(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${list(incomplete)}`);
  if (messages.length > 0) return condition(PodInitialized, false, ContainersNotInitialized, messages.join(", "));
  return condition(PodInitialized, true);
}

/**
 * PodReadyToStartContainers: the pod has its sandbox with networking (the runtime would not
 * have to create a new one; kuberuntime PodSandboxChanged).
 */
export function generatePodReadyToStartContainersCondition(pod: Pod, podStatus: RuntimePodStatus): PodCondition {
  return condition(PodReadyToStartContainers, !podSandboxChanged(pod, podStatus).changed);
}

export function generatePodScheduledCondition(): PodCondition {
  return condition(PodScheduled, true);
}

/** Ready / ContainersReady of a pod in a terminal phase: always False, with the phase as reason. */
export function terminalPhaseReadyConditions(phase: PodPhase): PodCondition[] {
  return [condition(PodReady, false, terminalReason(phase)), condition(ContainersReady, false, terminalReason(phase))];
}

/**
 * Whether the pod's Ready condition, as the apiserver holds it, disagrees with what its readiness
 * gates say now (status_manager.go NeedToReconcilePodReadiness). A client setting a gate's
 * condition changes only the pod's status, which reaches the kubelet as a RECONCILE; this is what
 * makes that RECONCILE sync the pod so Ready is generated anew. Only a Ready condition already
 * present counts: before the first status there is nothing to reconcile.
 */
export function needToReconcilePodReadiness(pod: Pod): boolean {
  if ((pod.spec.readinessGates ?? []).length === 0) return false;
  const status = pod.status ?? {};
  const current = status.conditions?.find((c) => c.type === PodReady);
  if (current === undefined) return false;
  const expected = generatePodReadyCondition(pod, status.conditions ?? [], status.containerStatuses, status.phase ?? "Pending");
  return current.status !== expected.status || (current.message ?? "") !== (expected.message ?? "");
}
