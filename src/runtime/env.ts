/**
 * The container environment the kubelet computes (makeEnvironmentVariables): envFrom first (with
 * its prefix), then env in order, each value expanded against the variables so far and the
 * service-link variables, valueFrom resolved from the downward API, ConfigMaps and Secrets; the
 * service-link variables last, except where a container variable has the name. A missing object
 * or key that is not optional fails the container with CreateContainerConfigError and the
 * kubelet's message. Without an API client (standalone) any ConfigMap or Secret reference fails.
 */
import { isStaticPod, type ConfigMap, type Container, type EnvVar, type Pod, type Secret, type Service } from "../api/index.ts";
import { containerResourceValue, DownwardAPIError, podFieldValue, type NodeFacts } from "../container/index.ts";
import { containerConfigError } from "./errors.ts";
import { expand, mappingFor } from "./expansion.ts";
import { serviceEnvVars } from "./service-env.ts";

/** The API objects env vars read; an implementation throws ObjectNotFoundError for a missing one. */
export interface EnvObjects {
  configMap(namespace: string, name: string, signal?: AbortSignal): Promise<ConfigMap>;
  secret(namespace: string, name: string, signal?: AbortSignal): Promise<Secret>;
  /** Every Service of the cluster the kubelet's service lister holds (service links); undefined until they were read once. */
  services(signal?: AbortSignal): Promise<Service[] | undefined>;
}

/** A ConfigMap or Secret the apiserver does not have; the message is the apiserver's. */
export class ObjectNotFoundError extends Error {
  override readonly name = "ObjectNotFoundError";
  constructor(kind: "configmap" | "secret", name: string) {
    super(`${kind} "${name}" not found`);
  }
}

export interface EnvContext extends NodeFacts {
  /** undefined when standalone. */
  objects?: EnvObjects;
}

type Kind = "configMap" | "secret";

/** The objects of one container's env, each fetched once (the kubelet's configMaps/secrets maps). */
function objectCache(pod: Pod, ctx: EnvContext, signal?: AbortSignal) {
  const namespace = pod.metadata.namespace ?? "";
  const seen = new Map<string, Record<string, string> | undefined>();
  /** The object's data as strings, or undefined when it is missing and optional. */
  return async (kind: Kind, name: string, optional: boolean): Promise<Record<string, string> | undefined> => {
    const key = `${kind}/${name}`;
    if (seen.has(key)) return seen.get(key);
    if (!ctx.objects) throw containerConfigError(`couldn't get ${kind} ${namespace}/${name}, no kubeClient defined`);
    let data: Record<string, string>;
    try {
      if (kind === "configMap") data = (await ctx.objects.configMap(namespace, name, signal)).data ?? {};
      else data = decodeSecret((await ctx.objects.secret(namespace, name, signal)).data);
    } catch (err) {
      if (err instanceof ObjectNotFoundError && optional) return undefined;
      throw containerConfigError(err instanceof Error ? err.message : String(err));
    }
    seen.set(key, data);
    return data;
  };
}

function decodeSecret(data: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data ?? {})) out[k] = Buffer.from(v, "base64").toString("utf8");
  return out;
}

/**
 * The Services for service-link variables. Only an API pod waits for them to have been read once
 * (the kubelet's makeEnvironmentVariables): a static pod must start while the apiserver is away.
 */
async function servicesFor(pod: Pod, objects: EnvObjects, signal?: AbortSignal): Promise<Service[]> {
  const services = await objects.services(signal);
  if (services !== undefined) return services;
  if (isStaticPod(pod)) return [];
  throw new Error("services have not yet been read at least once, cannot construct envvars");
}

export async function makeEnvironmentVariables(
  pod: Pod,
  container: Container,
  ctx: EnvContext,
  signal?: AbortSignal,
): Promise<{ name: string; value: string }[]> {
  const serviceEnv = ctx.objects ? serviceEnvVars(await servicesFor(pod, ctx.objects, signal), pod.metadata.namespace ?? "", pod.spec.enableServiceLinks ?? true) : new Map<string, string>();
  const get = objectCache(pod, ctx, signal);
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const [kind, ref]: [Kind, { name?: string; optional?: boolean } | undefined] = from.configMapRef ? ["configMap", from.configMapRef] : ["secret", from.secretRef];
    if (!ref) continue;
    const data = await get(kind, ref.name ?? "", ref.optional ?? false);
    for (const [k, v] of Object.entries(data ?? {})) env.set((from.prefix ?? "") + k, v);
  }
  const mapping = mappingFor(env, serviceEnv);
  for (const e of container.env ?? []) {
    if (e.value) env.set(e.name, expand(e.value, mapping));
    else if (e.valueFrom) {
      const v = await valueFrom(pod, container, e, ctx, get);
      if (v === undefined) continue; // an optional reference that cannot be resolved is skipped
      env.set(e.name, v);
    } else env.set(e.name, "");
  }
  for (const [k, v] of serviceEnv) if (!env.has(k)) env.set(k, v);
  return [...env].map(([name, value]) => ({ name, value }));
}

async function valueFrom(pod: Pod, container: Container, e: EnvVar, ctx: EnvContext, get: ReturnType<typeof objectCache>): Promise<string | undefined> {
  const from = e.valueFrom!;
  try {
    if (from.fieldRef) return podFieldValue(pod, from.fieldRef.fieldPath, ctx);
    if (from.resourceFieldRef) return containerResourceValue(pod, container, from.resourceFieldRef, ctx);
  } catch (err) {
    if (err instanceof DownwardAPIError) throw containerConfigError(err.message);
    throw err;
  }
  const [kind, ref]: [Kind, { name?: string; key: string; optional?: boolean } | undefined] = from.configMapKeyRef
    ? ["configMap", from.configMapKeyRef]
    : ["secret", from.secretKeyRef];
  if (!ref) return "";
  const optional = ref.optional ?? false;
  const data = await get(kind, ref.name ?? "", optional);
  if (data === undefined) return undefined;
  const value = data[ref.key];
  if (value !== undefined) return value;
  if (optional) return undefined;
  const kindName = kind === "configMap" ? "ConfigMap" : "Secret";
  throw containerConfigError(`couldn't find key ${ref.key} in ${kindName} ${pod.metadata.namespace ?? ""}/${ref.name ?? ""}`);
}
