/**
 * What the checkpointed pods reference: the only API objects the checkpoint keeps. A ConfigMap or
 * Secret is kept when a pod names it in a volume (direct or projected), an env var or envFrom, or
 * (Secrets) as an image pull secret; a token when it is bound to a kept pod; a Service when a kept
 * pod would get its service-link variables (its namespace, with enableServiceLinks) or it is one
 * of the master services every pod gets (`default/kubernetes`).
 */
import type { Container, Pod } from "../api/index.ts";

export interface PodReferences {
  /** `namespace/name` of each ConfigMap. */
  configMaps: Set<string>;
  /** `namespace/name` of each Secret. */
  secrets: Set<string>;
  /** The UIDs of the pods (service account tokens are bound to one). */
  podUIDs: Set<string>;
  /** Namespaces whose Services give a kept pod service-link variables. */
  serviceNamespaces: Set<string>;
}

/** The namespace whose master services every pod gets as env vars, and their names. */
const MASTER_NAMESPACE = "default";
const MASTER_SERVICES = new Set(["kubernetes"]);

export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ""}/${name ?? ""}`;
}

/** What one pod references, kept by pod object: a snapshot changes one or two pods, not all. */
interface OnePodReferences {
  configMaps: string[];
  secrets: string[];
  uid?: string;
  serviceNamespace?: string;
}

const byPod = new WeakMap<Pod, OnePodReferences>();

function onePodReferences(pod: Pod): OnePodReferences {
  const cached = byPod.get(pod);
  if (cached) return cached;
  const ns = pod.metadata.namespace || "default";
  const refs: OnePodReferences = { configMaps: [], secrets: [], uid: pod.metadata.uid || undefined, serviceNamespace: pod.spec.enableServiceLinks !== false ? ns : undefined };
  const configMap = (name: string | undefined) => name && refs.configMaps.push(objectKey(ns, name));
  const secret = (name: string | undefined) => name && refs.secrets.push(objectKey(ns, name));
  for (const v of pod.spec.volumes ?? []) {
    configMap(v.configMap?.name);
    secret(v.secret?.secretName);
    for (const s of v.projected?.sources ?? []) {
      configMap(s.configMap?.name);
      secret(s.secret?.name);
    }
  }
  for (const s of pod.spec.imagePullSecrets ?? []) secret(s.name);
  const containers: Container[] = [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...((pod.spec.ephemeralContainers ?? []) as Container[])];
  for (const c of containers) {
    for (const e of c.env ?? []) {
      configMap(e.valueFrom?.configMapKeyRef?.name);
      secret(e.valueFrom?.secretKeyRef?.name);
    }
    for (const e of c.envFrom ?? []) {
      configMap(e.configMapRef?.name);
      secret(e.secretRef?.name);
    }
  }
  byPod.set(pod, refs);
  return refs;
}

/** What the pods reference together. Pods are not changed once handed over (the checkpoint's kept objects). */
export function podReferences(pods: readonly Pod[]): PodReferences {
  const refs: PodReferences = { configMaps: new Set(), secrets: new Set(), podUIDs: new Set(), serviceNamespaces: new Set() };
  for (const pod of pods) {
    const one = onePodReferences(pod);
    for (const k of one.configMaps) refs.configMaps.add(k);
    for (const k of one.secrets) refs.secrets.add(k);
    if (one.uid) refs.podUIDs.add(one.uid);
    if (one.serviceNamespace) refs.serviceNamespaces.add(one.serviceNamespace);
  }
  return refs;
}

/** A Service some kept pod gets variables from. */
export function serviceReferenced(refs: PodReferences, namespace: string | undefined, name: string | undefined): boolean {
  if (namespace === MASTER_NAMESPACE && MASTER_SERVICES.has(name ?? "")) return refs.podUIDs.size > 0;
  return refs.serviceNamespaces.has(namespace ?? "");
}
