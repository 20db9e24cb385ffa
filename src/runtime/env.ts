/**
 * The container environment the kubelet computes (makeEnvironmentVariables): env entries in order,
 * each value expanded against the ones before it, downward API fields and resource fields resolved
 * here. bunlet has no apiserver client, so ConfigMap and Secret references fail the container
 * (CreateContainerConfigError) unless marked optional, as a standalone kubelet does.
 */
import type { Container, EnvVar, Pod } from "../api/index.ts";
import { Quantity, resourceQuantity } from "../api/index.ts";
import { containerConfigError } from "./errors.ts";
import { expand, mappingFor } from "./expansion.ts";

export interface EnvContext {
  nodeName: string;
  podIPs: string[];
  hostIPs: string[];
  /** Node capacity, the default for unset limits in resourceFieldRef. */
  cpuCapacityMilli: number;
  memoryCapacity: number;
}

export function makeEnvironmentVariables(pod: Pod, container: Container, ctx: EnvContext): { name: string; value: string }[] {
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? "configmap" : "secret";
    if (ref && !ref.optional) {
      throw containerConfigError(`couldn't get ${kind} ${pod.metadata.namespace}/${ref.name ?? ""}: no apiserver client (standalone node)`);
    }
  }
  const mapping = mappingFor(env);
  for (const e of container.env ?? []) {
    if (e.value) env.set(e.name, expand(e.value, mapping));
    else if (e.valueFrom) {
      const v = valueFrom(pod, container, e, ctx);
      if (v === undefined) continue; // an optional reference that cannot be resolved is skipped
      env.set(e.name, v);
    } else env.set(e.name, "");
  }
  return [...env].map(([name, value]) => ({ name, value }));
}

function valueFrom(pod: Pod, container: Container, e: EnvVar, ctx: EnvContext): string | undefined {
  const from = e.valueFrom!;
  if (from.fieldRef) return podField(pod, from.fieldRef.fieldPath, ctx);
  if (from.resourceFieldRef) return resourceField(pod, container, from.resourceFieldRef, ctx);
  const ref = from.configMapKeyRef ?? from.secretKeyRef;
  const kind = from.configMapKeyRef ? "configmap" : "secret";
  if (ref?.optional) return undefined;
  throw containerConfigError(
    `couldn't get ${kind} ${pod.metadata.namespace}/${ref?.name ?? ""} for env ${e.name}: no apiserver client (standalone node)`,
  );
}

function podField(pod: Pod, path: string, ctx: EnvContext): string {
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
      return pod.spec.nodeName || ctx.nodeName;
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.hostIP":
      return ctx.hostIPs[0] ?? "";
    case "status.hostIPs":
      return ctx.hostIPs.join(",");
    case "status.podIP":
      return ctx.podIPs[0] ?? "";
    case "status.podIPs":
      return ctx.podIPs.join(",");
    default:
      throw containerConfigError(`unsupported fieldRef fieldPath ${JSON.stringify(path)}`);
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
function nodeAllocatable(name: string, ctx: EnvContext): Quantity | undefined {
  if (name === "cpu") return Quantity.ofMilli(ctx.cpuCapacityMilli, "DecimalSI");
  if (name === "memory") return Quantity.of(ctx.memoryCapacity, "BinarySI");
  if (name === "ephemeral-storage") {
    throw containerConfigError("limits.ephemeral-storage is unset and bunlet does not know the node's allocatable ephemeral storage");
  }
  return undefined;
}

/**
 * ExtractContainerResourceValue: the container's request or limit divided by the divisor and
 * rounded up. Unset limits are the node's allocatable for the container itself and for regular
 * containers named by containerName; a named init container is read as it is, as the kubelet does.
 */
function resourceField(
  pod: Pod,
  self: Container,
  ref: { resource: string; containerName?: string; divisor?: string },
  ctx: EnvContext,
): string {
  let container = self;
  let merged = true;
  if (ref.containerName) {
    const regular = pod.spec.containers.find((c) => c.name === ref.containerName);
    const found = regular ?? (pod.spec.initContainers ?? []).find((c) => c.name === ref.containerName);
    if (!found) throw containerConfigError(`container ${ref.containerName} not found`);
    [container, merged] = [found, regular !== undefined];
  }
  const dot = ref.resource.indexOf(".");
  const [kind, name] = [ref.resource.slice(0, dot), ref.resource.slice(dot + 1)];
  const known = ["cpu", "memory", "ephemeral-storage"].includes(name) || name.startsWith("hugepages-");
  if ((kind !== "limits" && kind !== "requests") || !known) {
    throw containerConfigError(`unsupported container resource : ${ref.resource}`);
  }
  let quantity = resourceQuantity(container.resources?.[kind], name);
  if (kind === "limits" && merged && quantity.isZero()) quantity = nodeAllocatable(name, ctx) ?? quantity;
  const given = ref.divisor === undefined ? Quantity.zero : Quantity.fromJSON(ref.divisor);
  const divisor = given.isZero() ? Quantity.of(1, "DecimalSI") : given;
  if (name === "cpu") return String(ceilDiv(quantity.milliValue(), divisor.milliValue()));
  return String(ceilDiv(quantity.value(), divisor.value()));
}
