/**
 * Beyond the kubelet: the node's own record of its desired state, so that a node restarted or
 * rebooted while the apiserver is unreachable can run what it ran. Kept under
 * `<root-dir>/checkpoint/`: the pods bound to this node as the apiserver last listed them
 * (pods.json), and the objects they reference: ConfigMaps (configmaps.json), Services
 * (services.json), Secrets and service account tokens (secrets/secrets.json, secrets/tokens.json).
 * Every directory is 0700 and every file 0600.
 *
 * Its memory changes when the desired state changes (a new pod snapshot, an object read from the
 * apiserver that differs from the kept one); its files follow at most once a second (writes.ts:
 * a crash loses at most the last second), and a file whose bytes would not change is not
 * rewritten. What the apiserver changes on its own at every status write (status,
 * resourceVersion, managedFields) is not kept, so a pod's status updates cost no disk write.
 */
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ConfigMap, Pod, Secret, Service } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { Collection } from "./collection.ts";
import { objectKey, podReferences, serviceReferenced, type PodReferences } from "./references.ts";
import { CoalescedWrites } from "./writes.ts";

/** A service account token as the TokenRequest API issued it (expiresAt in ms since the epoch). */
export interface CheckpointedToken {
  /** The token manager's cache key (service account, namespace, audiences, expiration, pod). */
  key: string;
  podUID: string;
  token: string;
  expiresAt: number;
}

export interface CheckpointOptions {
  /** `<root-dir>/checkpoint`. */
  dir: string;
  clock: Clock;
  log: Logger;
  /** The size limit of each file (default 8 MiB). */
  maxFileBytes?: number;
  /** The agent's: when it aborts, what waits is written at once, and every later change too. */
  signal?: AbortSignal;
}

export interface Checkpoint {
  /** The pods of the last checkpoint read at start; undefined when there was none. */
  readonly startPods: Pod[] | undefined;
  /** Records the apiserver's snapshot of this node's pods; drops objects no pod references now. */
  recordPods(pods: readonly Pod[]): void;
  /** True once the apiserver's pods were recorded by this process: from then on its objects win. */
  listed(): boolean;
  configMap(namespace: string, name: string): ConfigMap | undefined;
  /** undefined: the apiserver says it does not exist. */
  recordConfigMap(namespace: string, name: string, cm: ConfigMap | undefined): void;
  secret(namespace: string, name: string): Secret | undefined;
  recordSecret(namespace: string, name: string, secret: Secret | undefined): void;
  /** The kept token of this cache key, if it has not expired. */
  token(key: string): CheckpointedToken | undefined;
  recordToken(token: CheckpointedToken): void;
  /** The kept Services; undefined when none were ever recorded. */
  services(): Service[] | undefined;
  recordServices(services: readonly Service[]): void;
}

const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * A pod as kept: the desired state only, without what changes at every status write. A terminal
 * phase stays: a pod that finished must not be run again by a start from the checkpoint (the pod
 * workers read the phase of a source's pod as the kubelet does).
 */
function desiredPod(pod: Pod): Pod {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pod.metadata as Pod["metadata"] & { resourceVersion?: string; managedFields?: unknown };
  const phase = pod.status?.phase;
  const terminal = phase === "Succeeded" || phase === "Failed";
  return { apiVersion: pod.apiVersion, kind: pod.kind, metadata, spec: pod.spec, ...(terminal ? { status: { phase, reason: pod.status?.reason } } : {}) } as Pod;
}

function withoutManagedFields<T extends { metadata: object }>(obj: T): T {
  const { managedFields: _mf, ...metadata } = obj.metadata as { managedFields?: unknown };
  return { ...obj, metadata };
}

/** What service-link env vars read of a Service. */
function serviceForEnv(s: Service): Service {
  const { name, namespace, uid } = s.metadata;
  return { metadata: { name, namespace, uid }, spec: { clusterIP: s.spec?.clusterIP, ports: s.spec?.ports?.map(({ name, protocol, port }) => ({ name, protocol, port })) } };
}

const metaKey = (o: { metadata: { namespace?: string; name?: string } }) => objectKey(o.metadata.namespace, o.metadata.name);

export function createCheckpoint(opts: CheckpointOptions): Checkpoint {
  const { dir, clock, log } = opts;
  const maxBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const secretsDir = join(dir, "secrets");
  for (const d of [dir, secretsDir]) {
    mkdirSync(d, { recursive: true, mode: 0o700 });
    // mkdir leaves the mode of a directory that exists alone.
    chmodSync(d, 0o700);
  }
  const writes = new CoalescedWrites(clock, opts.signal);
  const collection = <T>(path: string, kind: string, keyOf: (item: T) => string) => new Collection<T>({ path, kind, keyOf, maxBytes, log });
  const pods = collection<Pod>(join(dir, "pods.json"), "Pods", (p) => p.metadata.uid ?? "");
  const configMaps = collection<ConfigMap>(join(dir, "configmaps.json"), "ConfigMaps", metaKey);
  const services = collection<Service>(join(dir, "services.json"), "Services", metaKey);
  const secrets = collection<Secret>(join(secretsDir, "secrets.json"), "Secrets", metaKey);
  const tokens = collection<CheckpointedToken>(join(secretsDir, "tokens.json"), "ServiceAccountTokens", (t) => t.key);

  let refs: PodReferences = podReferences(pods.values());
  // The kept form of each apiserver pod object: the store hands out the same object for a pod
  // that did not change, and the same kept object lets the collection reuse its JSON.
  const desired = new WeakMap<Pod, Pod>();
  const desiredOf = (pod: Pod) => {
    let kept = desired.get(pod);
    if (kept === undefined) {
      kept = desiredPod(pod);
      desired.set(pod, kept);
    }
    return kept;
  };
  let listed = false;
  // Every Service of the cluster as last listed (memory only): a new pod in another namespace
  // needs Services that were not referenced when they were recorded.
  let allServices: readonly Service[] | undefined;
  const pruneServices = () => {
    if (allServices !== undefined) {
      services.replaceAll(new Map(allServices.filter((s) => serviceReferenced(refs, s.metadata.namespace, s.metadata.name)).map((s) => [metaKey(s), serviceForEnv(s)])));
    }
    services.prune((_key, s) => serviceReferenced(refs, s.metadata.namespace, s.metadata.name));
  };
  const pruneObjects = () => {
    configMaps.prune((key) => refs.configMaps.has(key));
    secrets.prune((key) => refs.secrets.has(key));
    tokens.prune((_key, t) => refs.podUIDs.has(t.podUID) && t.expiresAt > clock.now());
    pruneServices();
  };

  return {
    startPods: pods.present ? pods.values() : undefined,
    recordPods(list) {
      listed = true;
      pods.replaceAll(new Map(list.filter((p) => p.metadata.uid).map((p) => [p.metadata.uid!, desiredOf(p)])));
      pods.prune(() => true);
      // What was dropped for size is not referenced either.
      refs = podReferences(pods.values());
      pruneObjects();
      writes.schedule(pods, configMaps, secrets, tokens, services);
    },
    listed: () => listed,
    configMap: (namespace, name) => configMaps.get(objectKey(namespace, name)),
    recordConfigMap(namespace, name, cm) {
      const key = objectKey(namespace, name);
      if (!refs.configMaps.has(key)) return;
      configMaps.set(key, cm && withoutManagedFields(cm));
      configMaps.prune((k) => refs.configMaps.has(k));
      writes.schedule(configMaps);
    },
    secret: (namespace, name) => secrets.get(objectKey(namespace, name)),
    recordSecret(namespace, name, secret) {
      const key = objectKey(namespace, name);
      if (!refs.secrets.has(key)) return;
      secrets.set(key, secret && withoutManagedFields(secret));
      secrets.prune((k) => refs.secrets.has(k));
      writes.schedule(secrets);
    },
    token(key) {
      const t = tokens.get(key);
      return t && t.expiresAt > clock.now() ? t : undefined;
    },
    recordToken(token) {
      if (!refs.podUIDs.has(token.podUID)) return;
      tokens.set(token.key, token);
      tokens.prune((_key, t) => refs.podUIDs.has(t.podUID) && t.expiresAt > clock.now());
      writes.schedule(tokens);
    },
    services: () => (services.present ? services.values() : undefined),
    recordServices(list) {
      allServices = list;
      pruneServices();
      writes.schedule(services);
    },
  };
}
