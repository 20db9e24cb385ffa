/**
 * Rules the status manager applies to every new status (status_manager.go): containers must not
 * leave Terminated unless the pod, or their own restart rules and policy, may restart them, timestamps have whole seconds, termination
 * messages share a 12 KiB budget, statuses are sorted, and two statuses that differ only in
 * conditions the kubelet does not own are the same.
 */
import type { Container, ContainerState, ContainerStatus, Pod, PodStatus } from "../api/index.ts";
import { containerShouldRestart, isRestartableInitContainer, podRestartPolicy } from "../container/index.ts";
import { DisruptionTarget, kubeletOwnedConditions } from "./conditions.ts";
import { normalizeTimestamp } from "./time.ts";
import { cloneJson } from "../lib/index.ts";

/** kubecontainer.MaxPodTerminationMessageLogLength */
const maxPodTerminationMessageLogLength = 1024 * 12;

/** An error message when a terminated container would come back (checkContainerStateTransition). */
export function illegalContainerTransition(old: PodStatus, next: PodStatus, pod: Pod): string | undefined {
  const policy = podRestartPolicy(pod);
  if (policy === "Always") return undefined;
  // A terminated container stays terminated unless the pod's policy or its own restart rules
  // and policy restart it.
  const stuck = (status: ContainerStatus, specs: Container[]) => {
    const terminated = status.state?.terminated;
    if (terminated === undefined) return false;
    if (terminated.exitCode !== 0 && policy === "OnFailure") return false;
    const spec = specs.find((c) => c.name === status.name);
    return spec === undefined || !containerShouldRestart(spec, pod, terminated.exitCode);
  };
  for (const before of old.containerStatuses ?? []) {
    if (!stuck(before, pod.spec.containers)) continue;
    const after = next.containerStatuses?.find((s) => s.name === before.name);
    if (after && after.state?.terminated === undefined) return `terminated container ${after.name} attempted illegal transition to non-terminated state`;
  }
  const initSpecs = pod.spec.initContainers ?? [];
  for (const before of old.initContainerStatuses ?? []) {
    const spec = initSpecs.find((c) => c.name === before.name);
    if (spec === undefined) return `found mismatch between pod spec and status, container: ${before.name}`;
    if (isRestartableInitContainer(spec) || !stuck(before, initSpecs)) continue;
    const after = next.initContainerStatuses?.find((s) => s.name === before.name);
    if (after && after.state?.terminated === undefined) return `terminated init container ${after.name} attempted illegal transition to non-terminated state`;
  }
  return undefined;
}

/** normalizeStatus: whole-second timestamps, bounded termination messages, stable order. */
export function normalizeStatus(pod: Pod, status: PodStatus): void {
  const containers = pod.spec.containers.length + (pod.spec.initContainers?.length ?? 0) + (pod.spec.ephemeralContainers?.length ?? 0);
  const bytesPerStatus = containers > 0 ? Math.floor(maxPodTerminationMessageLogLength / containers) : maxPodTerminationMessageLogLength;
  const normalizeState = (state: ContainerState | undefined) => {
    if (state?.running?.startedAt) state.running.startedAt = normalizeTimestamp(state.running.startedAt);
    const t = state?.terminated;
    if (t === undefined) return;
    if (t.message && t.message.length > bytesPerStatus) t.message = t.message.slice(0, bytesPerStatus);
    if (t.startedAt) t.startedAt = normalizeTimestamp(t.startedAt);
    if (t.finishedAt) t.finishedAt = normalizeTimestamp(t.finishedAt);
  };
  if (status.startTime) status.startTime = normalizeTimestamp(status.startTime);
  for (const c of status.conditions ?? []) {
    if (c.lastTransitionTime) c.lastTransitionTime = normalizeTimestamp(c.lastTransitionTime);
    if (c.lastProbeTime) c.lastProbeTime = normalizeTimestamp(c.lastProbeTime);
  }
  for (const cs of [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? []), ...(status.ephemeralContainerStatuses ?? [])]) {
    normalizeState(cs.state);
    normalizeState(cs.lastState);
  }
  const byName = (a: ContainerStatus, b: ContainerStatus) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  status.containerStatuses?.sort(byName);
  status.ephemeralContainerStatuses?.sort(byName);
  const order = new Map((pod.spec.initContainers ?? []).map((c, i) => [c.name, i]));
  status.initContainerStatuses?.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
}

/**
 * A status with its unset fields left out, for comparing bunlet's status with the apiserver's:
 * Go's JSON encoder writes a zero metav1.Time as `null` (a condition's `lastProbeTime`, a
 * terminated state's times) and an unset `lastState` as `{}`, where bunlet's own copy may leave
 * the field out or hold `null`. All of these mean "not set"; compared as written, every status
 * differed from the apiserver's and an idle pod was read and patched every 10 s. A copy.
 */
export function comparableStatus(status: PodStatus): PodStatus {
  const copy = dropNulls(cloneJson(status)) as PodStatus;
  for (const cs of [...(copy.containerStatuses ?? []), ...(copy.initContainerStatuses ?? [])]) {
    if (cs.lastState !== undefined && Object.keys(cs.lastState).length === 0) delete cs.lastState;
  }
  return copy;
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (obj[key] === null) delete obj[key];
    else obj[key] = dropNulls(obj[key]);
  }
  return obj;
}

/** Equal, looking only at conditions the kubelet owns or shares (isPodStatusByKubeletEqual). */
export function isPodStatusByKubeletEqual(a: PodStatus, b: PodStatus): boolean {
  return stableJson(kubeletView(a)) === stableJson(kubeletView(b));
}

function kubeletView(status: PodStatus): PodStatus {
  const conditions = (status.conditions ?? [])
    .filter((c) => kubeletOwnedConditions.has(c.type) || c.type === DisruptionTarget)
    .sort((x, y) => (x.type < y.type ? -1 : 1));
  return { ...status, conditions };
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
