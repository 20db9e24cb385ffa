/**
 * The container environment the kubelet computes (makeEnvironmentVariables): env entries in order,
 * each value expanded against the ones before it, downward API fields and resource fields resolved
 * here. bunlet has no apiserver client, so ConfigMap and Secret references fail the container
 * (CreateContainerConfigError) unless marked optional, as a standalone kubelet does.
 */
import type { Container, EnvVar, Pod } from "../api/index.ts";
import { containerConfigError } from "./errors.ts";
import { expand, mappingFor } from "./expansion.ts";
import { memoryBytes, milliCpu, parseQuantity } from "./resources.ts";

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

function resourceField(
  pod: Pod,
  self: Container,
  ref: { resource: string; containerName?: string; divisor?: string },
  ctx: EnvContext,
): string {
  const target = ref.containerName
    ? [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((c) => c.name === ref.containerName)
    : self;
  if (!target) throw containerConfigError(`resourceFieldRef names unknown container ${JSON.stringify(ref.containerName)}`);
  const r = target.resources;
  const divisor = parseQuantity(ref.divisor ?? "1") || 1;
  switch (ref.resource) {
    case "limits.cpu":
    case "requests.cpu": {
      const limit = milliCpu(r?.limits) ?? ctx.cpuCapacityMilli;
      const milli = ref.resource === "limits.cpu" ? limit : (milliCpu(r?.requests) ?? milliCpu(r?.limits) ?? 0);
      return String(Math.ceil(milli / 1000 / divisor));
    }
    case "limits.memory":
    case "requests.memory": {
      const limit = memoryBytes(r?.limits) ?? ctx.memoryCapacity;
      const bytes = ref.resource === "limits.memory" ? limit : (memoryBytes(r?.requests) ?? memoryBytes(r?.limits) ?? 0);
      return String(Math.ceil(bytes / divisor));
    }
    default:
      throw containerConfigError(`unsupported resourceFieldRef resource ${JSON.stringify(ref.resource)}`);
  }
}
