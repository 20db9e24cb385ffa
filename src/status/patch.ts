/**
 * What the status manager sends to the apiserver (status_manager.go mergePodStatus and
 * statusutil.PatchPodStatus): the kubelet's status merged with the conditions other owners wrote,
 * and the two-way strategic merge patch from the apiserver's status to that. Pure functions.
 *
 * The patch follows the v1 PodStatus patch strategies: `conditions` merge by `type` (a condition
 * another owner wrote is never in the patch, so it survives; one the kubelet dropped is deleted
 * with `$patch: delete`), `podIPs` and `hostIPs` merge by `ip` (sent whole with `$patch: replace`
 * when they change), every other field is replaced, and a field that went away is sent as null.
 * `metadata.uid` rides along as the kubelet's precondition: the apiserver refuses the patch when
 * the object is a different pod of the same name.
 */
import { isMirrorPod, type Pod, type PodCondition, type PodStatus } from "../api/index.ts";
import { cloneJson, deepEqual } from "../lib/index.ts";
import { DisruptionTarget, kubeletOwnedConditions } from "./conditions.ts";
import { isPodPhaseTerminal } from "./phase.ts";

/** Fields another owner writes; the kubelet's status never changes them. */
const notOwnedByKubelet = ["nominatedNodeName", "resourceClaimStatuses", "resize", "extendedResourceClaimStatus"] as const;

/**
 * The status to send: the kubelet's conditions replace the apiserver's of the same type, other
 * conditions stay; a pod that could still have running containers does not go terminal yet. (The
 * manager already made a terminal status not ready.)
 */
export function mergePodStatus(oldStatus: PodStatus, newStatus: PodStatus, couldHaveRunningContainers: boolean): PodStatus {
  const merged: PodStatus = cloneJson(newStatus);
  const transitioningToTerminal = !isPodPhaseTerminal(oldStatus.phase) && isPodPhaseTerminal(newStatus.phase);
  const conditions: PodCondition[] = (oldStatus.conditions ?? []).filter((c) => !kubeletOwnedConditions.has(c.type));
  for (const c of newStatus.conditions ?? []) {
    if (kubeletOwnedConditions.has(c.type)) conditions.push(c);
    else if (c.type === DisruptionTarget && transitioningToTerminal && !couldHaveRunningContainers) {
      const i = conditions.findIndex((o) => o.type === c.type);
      if (i >= 0) conditions[i] = c;
      else conditions.push(c);
    }
  }
  merged.conditions = conditions;
  const old = oldStatus as Record<string, unknown>;
  const out = merged as Record<string, unknown>;
  for (const key of notOwnedByKubelet) {
    if (old[key] !== undefined) out[key] = old[key];
    else delete out[key];
  }
  if (transitioningToTerminal && couldHaveRunningContainers) {
    merged.phase = oldStatus.phase;
    setOrDelete(out, "reason", oldStatus.reason);
    setOrDelete(out, "message", oldStatus.message);
  }
  return merged;
}

function setOrDelete(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete obj[key];
  else obj[key] = value;
}

/**
 * The strategic merge patch that turns `oldStatus` into `newStatus`, with the pod's UID as
 * precondition; undefined when there is nothing to change.
 */
export function makeStatusPatch(uid: string, oldStatus: PodStatus, newStatus: PodStatus): Record<string, unknown> | undefined {
  const before = oldStatus as Record<string, unknown>;
  const after = newStatus as Record<string, unknown>;
  const status: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === "conditions") continue;
    if (deepEqual(before[key], after[key])) continue;
    if (after[key] === undefined) status[key] = null;
    else if ((key === "podIPs" || key === "hostIPs") && Array.isArray(after[key])) status[key] = [{ $patch: "replace" }, ...(after[key] as unknown[])];
    else status[key] = after[key];
  }
  const conditionPatch = conditionsPatch(oldStatus.conditions ?? [], newStatus.conditions ?? []);
  if (conditionPatch) {
    status.conditions = conditionPatch;
    status["$setElementOrder/conditions"] = (newStatus.conditions ?? []).map((c) => ({ type: c.type }));
  }
  if (Object.keys(status).length === 0) return undefined;
  return { metadata: { uid }, status };
}

/** The conditions that changed or are new, and a delete for each that went away; undefined when none. */
function conditionsPatch(before: PodCondition[], after: PodCondition[]): unknown[] | undefined {
  const out: unknown[] = [];
  for (const c of after) {
    const old = before.find((o) => o.type === c.type);
    if (old && deepEqual(old, c)) continue;
    // Fields the old condition had and the new one lacks are cleared.
    const entry: Record<string, unknown> = { ...c };
    for (const key of Object.keys(old ?? {})) if (!(key in entry)) entry[key] = null;
    out.push(entry);
  }
  for (const c of before) if (!after.some((n) => n.type === c.type)) out.push({ type: c.type, $patch: "delete" });
  return out.length > 0 ? out : undefined;
}

/**
 * The kubelet's canBeDeleted: a pod being deleted whose termination finished (its containers are
 * gone) and whose terminal phase the apiserver has, can have its object removed. A mirror pod is
 * never deleted this way (the static pod's owner handles it).
 */
export function canBeDeleted(apiPod: Pod, podIsFinished: boolean): boolean {
  if (apiPod.metadata.deletionTimestamp === undefined) return false;
  if (isMirrorPod(apiPod)) return false;
  return isPodPhaseTerminal(apiPod.status?.phase) && podIsFinished;
}
