/**
 * The downward API's values (the kubelet's podFieldSelectorRuntimeValue and
 * ExtractContainerResourceValue): pod fields by fieldPath and container resources by
 * resourceFieldRef, divided by the divisor and rounded up with exact quantities. Env vars
 * (src/runtime) and downwardAPI volume files (src/volumes) both read them here.
 */
import type { Container, Pod } from "../api/index.ts";
import { Quantity, resourceQuantity } from "../api/index.ts";

/** The node facts a value may need: unset limits default to the node's allocatable. */
export interface NodeFacts {
  nodeName: string;
  podIPs: string[];
  hostIPs: string[];
  cpuCapacityMilli: number;
  memoryCapacity: number;
}

/** A field or resource the downward API cannot give; the message is the kubelet's. */
export class DownwardAPIError extends Error {
  override readonly name = "DownwardAPIError";
}

export function podFieldValue(pod: Pod, path: string, facts: NodeFacts): string {
  const m = pod.metadata;
  const subscript = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (subscript) return (subscript[1] === "labels" ? m.labels : m.annotations)?.[subscript[2]] ?? "";
  switch (path) {
    case "metadata.name":
      return m.name ?? "";
    case "metadata.namespace":
      return m.namespace ?? "";
    case "metadata.uid":
      return m.uid ?? "";
    case "metadata.labels":
      return formatMap(m.labels);
    case "metadata.annotations":
      return formatMap(m.annotations);
    case "spec.nodeName":
      return pod.spec.nodeName || facts.nodeName;
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.hostIP":
      return facts.hostIPs[0] ?? "";
    case "status.hostIPs":
      return facts.hostIPs.join(",");
    case "status.podIP":
      return facts.podIPs[0] ?? "";
    case "status.podIPs":
      return facts.podIPs.join(",");
    default:
      throw new DownwardAPIError(`unsupported fieldRef fieldPath ${JSON.stringify(path)}`);
  }
}

/** key="value" lines, sorted (fieldpath.FormatMap). */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(map![k])}`)
    .join("\n");
}

/** ceil(a / b), as the kubelet's math.Ceil of the float64 quotient (the same below 2^53). */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/**
 * The node's allocatable amount that stands in for an unset or zero limit
 * (MergeContainerResourceLimits; hugepages are never merged).
 */
function nodeAllocatable(name: string, facts: NodeFacts): Quantity | undefined {
  if (name === "cpu") return Quantity.ofMilli(facts.cpuCapacityMilli, "DecimalSI");
  if (name === "memory") return Quantity.of(facts.memoryCapacity, "BinarySI");
  if (name === "ephemeral-storage") {
    throw new DownwardAPIError("limits.ephemeral-storage is unset and bunlet does not know the node's allocatable ephemeral storage");
  }
  return undefined;
}

/**
 * ExtractContainerResourceValue: the container's request or limit divided by the divisor and
 * rounded up. Unset limits are the node's allocatable for the container itself and for regular
 * containers named by containerName; a named init container is read as it is, as the kubelet does.
 */
export function containerResourceValue(
  pod: Pod,
  self: Container | undefined,
  ref: { resource: string; containerName?: string; divisor?: string },
  facts: NodeFacts,
): string {
  let container = self;
  let merged = true;
  if (ref.containerName || !container) {
    const regular = pod.spec.containers.find((c) => c.name === ref.containerName);
    const found = regular ?? (pod.spec.initContainers ?? []).find((c) => c.name === ref.containerName);
    if (!found) throw new DownwardAPIError(`container ${ref.containerName ?? ""} not found`);
    [container, merged] = [found, regular !== undefined];
  }
  const dot = ref.resource.indexOf(".");
  const [kind, name] = [ref.resource.slice(0, dot), ref.resource.slice(dot + 1)];
  const known = ["cpu", "memory", "ephemeral-storage"].includes(name) || name.startsWith("hugepages-");
  if ((kind !== "limits" && kind !== "requests") || !known) {
    throw new DownwardAPIError(`unsupported container resource : ${ref.resource}`);
  }
  let quantity = resourceQuantity(container!.resources?.[kind], name);
  if (kind === "limits" && merged && quantity.isZero()) quantity = nodeAllocatable(name, facts) ?? quantity;
  const given = ref.divisor === undefined ? Quantity.zero : Quantity.fromJSON(ref.divisor);
  const divisor = given.isZero() ? Quantity.of(1, "DecimalSI") : given;
  if (name === "cpu") return String(ceilDiv(quantity.milliValue(), divisor.milliValue()));
  return String(ceilDiv(quantity.value(), divisor.value()));
}
