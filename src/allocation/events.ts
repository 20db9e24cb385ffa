/**
 * The resize event texts (pkg/kubelet/events/resize.go): a prefix and the pod's desired container
 * resources as Go's encoding/json writes its podResourceSummary: init containers, then
 * containers (each left out when empty), the generation, and the error when there is one. Go
 * sorts map keys, writes each quantity's canonical form, and escapes <, > and &.
 */
import { Quantity, type Pod, type ResourceRequirements } from "../api/index.ts";

export const ResizeStarted = "ResizeStarted";
export const ResizeCompleted = "ResizeCompleted";
export const ResizeDeferred = "ResizeDeferred";
export const ResizeInfeasible = "ResizeInfeasible";
export const ResizeError = "ResizeError";

function goString(s: string): string {
  return JSON.stringify(s).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function resourceList(list: Readonly<Record<string, string | number>>): string {
  const keys = Object.keys(list).sort();
  return `{${keys.map((k) => `${goString(k)}:${goString(Quantity.fromJSON(list[k]!).toString())}`).join(",")}}`;
}

function requirements(r: ResourceRequirements | undefined): string {
  const parts: string[] = [];
  if (r?.limits && Object.keys(r.limits).length > 0) parts.push(`"limits":${resourceList(r.limits)}`);
  if (r?.requests && Object.keys(r.requests).length > 0) parts.push(`"requests":${resourceList(r.requests)}`);
  return `{${parts.join(",")}}`;
}

function summary(pod: Pod, generation: number, error: string): string {
  const containers = (list: Pod["spec"]["containers"]) => `[${list.map((c) => `{"name":${goString(c.name)},"resources":${requirements(c.resources)}}`).join(",")}]`;
  const parts: string[] = [];
  if ((pod.spec.initContainers ?? []).length > 0) parts.push(`"initContainers":${containers(pod.spec.initContainers!)}`);
  if (pod.spec.containers.length > 0) parts.push(`"containers":${containers(pod.spec.containers)}`);
  parts.push(`"generation":${generation}`);
  if (error) parts.push(`"error":${goString(error)}`);
  return `{${parts.join(",")}}`;
}

/** podResizeMessage: "<prefix>: <summary>". */
export function podResizeMessage(pod: Pod, generation: number, error: string, prefix: string): string {
  return `${prefix}: ${summary(pod, generation, error)}`;
}
