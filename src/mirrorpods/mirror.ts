/**
 * Mirror pods (the kubelet's mirror_client.go and the static-pod part of kubelet.go SyncPod and
 * HandlePodCleanups): every static pod bunlet runs gets a pod object in the apiserver, a copy of
 * the static pod with the `kubernetes.io/config.mirror` annotation (the static pod's hash) and the
 * Node as its controlling owner, so the cluster sees it. A mirror pod whose hash differs, or that
 * is being deleted, is deleted (grace 0, UID precondition) and made again; one whose static pod
 * is gone is deleted. bunlet keeps its own view of the mirror pods on this node through a
 * reflector over the node's pods (only the mirror ones are kept); a change of one asks for a sync
 * of its static pod, which is how a deleted mirror pod comes back at once.
 */
import type { Node } from "kubernetes-types/core/v1";
import { createReflector, isAlreadyExists, isConflict, isNotFound, resourcePath, type ApiClient, type KubeObject, type ReflectorStore } from "../apiclient/index.ts";
import { ConfigHashAnnotationKey, ConfigMirrorAnnotationKey, isMirrorPod, podFullName, podRef, type Pod } from "../api/index.ts";
import type { Clock, Logger, Timer } from "../lib/index.ts";

/** How soon a static pod is synced again when its mirror could not be made because the Node is not there yet. */
const NODE_MISSING_RETRY_MS = 2000;

export interface MirrorPodsDeps {
  client: Pick<ApiClient, "get" | "create" | "delete" | "list" | "watch">;
  nodeName: string;
  clock: Clock;
  random: () => number;
  log: Logger;
  /** Asks for a sync of the static pod of this full name (`name_namespace`), if bunlet runs one. */
  resync(fullName: string): void;
}

export interface MirrorPods {
  /** Watches the mirror pods on this node until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** SyncPod's step for a static pod: replace a stale mirror pod, create a missing one. Never throws. */
  sync(pod: Pod, signal: AbortSignal): Promise<void>;
  /** Housekeeping: deletes the mirror pods whose static pod bunlet no longer runs. Never throws. */
  deleteOrphaned(hasStaticPod: (fullName: string) => boolean, signal: AbortSignal): Promise<void>;
  /** The mirror pod of a static pod as last seen in the apiserver, if any (whatever its hash). */
  mirrorPodOf(staticPod: Pod): Pod | undefined;
  /** How many mirror pods on this node the apiserver showed last (kubelet_mirror_pods). */
  count(): number;
}

/** IsMirrorPodOf: same full name and the static pod's hash. */
export function isMirrorPodOf(mirror: Pod, pod: Pod): boolean {
  if (podFullName(mirror) !== podFullName(pod)) return false;
  return mirror.metadata.annotations?.[ConfigMirrorAnnotationKey] === pod.metadata.annotations?.[ConfigHashAnnotationKey];
}

/** The object created for a static pod: its copy with the mirror annotation and the Node as controller. */
export function mirrorPodFor(pod: Pod, node: { name: string; uid: string }): Pod {
  const { status: _status, ...rest } = pod;
  return {
    ...rest,
    metadata: {
      ...pod.metadata,
      annotations: { ...pod.metadata.annotations, [ConfigMirrorAnnotationKey]: pod.metadata.annotations?.[ConfigHashAnnotationKey] ?? "" },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: node.name, uid: node.uid, controller: true }],
    },
  } as Pod;
}

export function createMirrorPods(deps: MirrorPodsDeps): MirrorPods {
  const { client, nodeName, clock, log } = deps;
  const mirrors = new Map<string, Pod>();
  const retries = new Map<string, Timer>();
  let nodeUID = "";

  const changed = (fullName: string) => deps.resync(fullName);
  const store: ReflectorStore<Pod & KubeObject> = {
    replace(items) {
      const before = new Set(mirrors.keys());
      mirrors.clear();
      for (const pod of items) if (isMirrorPod(pod)) mirrors.set(podFullName(pod), pod);
      for (const name of new Set([...before, ...mirrors.keys()])) changed(name);
    },
    add(pod) {
      if (!isMirrorPod(pod)) return;
      mirrors.set(podFullName(pod), pod);
      changed(podFullName(pod));
    },
    update(pod) {
      if (!isMirrorPod(pod)) return;
      mirrors.set(podFullName(pod), pod);
      changed(podFullName(pod));
    },
    delete(pod) {
      if (!mirrors.delete(podFullName(pod))) return;
      changed(podFullName(pod));
    },
  };
  const reflector = createReflector<Pod & KubeObject>({
    client,
    path: resourcePath({ apiVersion: "v1", resource: "pods" }),
    fieldSelector: `spec.nodeName=${nodeName}`,
    store,
    clock,
    random: deps.random,
    log,
    name: "*v1.Pod (mirror pods)",
  });

  async function getNodeUID(signal: AbortSignal): Promise<string | undefined> {
    if (nodeUID) return nodeUID;
    try {
      const node = await client.get<Node>(resourcePath({ apiVersion: "v1", resource: "nodes", name: nodeName }), { signal });
      if (node.metadata?.deletionTimestamp) return undefined;
      nodeUID = node.metadata?.uid ?? "";
      return nodeUID || undefined;
    } catch (err) {
      if (signal.aborted) throw err;
      log.debug("No need to create a mirror pod, since failed to get node info from the cluster", { node: nodeName, err }, 4);
      return undefined;
    }
  }

  /** DeleteMirrorPod: grace 0, with the UID precondition when given; NotFound and Conflict count as done. */
  async function deleteMirrorPod(namespace: string, name: string, uid: string | undefined, signal: AbortSignal): Promise<boolean> {
    log.debug("Deleting a mirror pod", { pod: `${namespace}/${name}`, podUID: uid }, 2);
    try {
      await client.delete(resourcePath({ apiVersion: "v1", resource: "pods", namespace, name }), {
        gracePeriodSeconds: 0,
        preconditions: uid ? { uid } : undefined,
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(isNotFound(err) || isConflict(err))) {
        log.error("Failed deleting a mirror pod; retrying at the next sync", { pod: `${namespace}/${name}`, err });
        return false;
      }
    }
    return true;
  }

  return {
    async run(signal) {
      try {
        await reflector.run(signal);
      } finally {
        for (const timer of retries.values()) timer.cancel();
        retries.clear();
      }
    },

    async sync(pod, signal) {
      const fullName = podFullName(pod);
      const fields = { pod: podRef(pod) };
      const retryShortly = () => {
        retries.get(fullName)?.cancel();
        retries.set(fullName, clock.setTimer(NODE_MISSING_RETRY_MS, () => (retries.delete(fullName), changed(fullName))));
      };
      // Until the mirror pods are listed bunlet cannot know whether one exists, and a request to
      // an apiserver that does not answer (stopped, or a link that drops packets) would hold the
      // static pod's start for as long: the kubelet reads the Node from its informer cache here
      // and skips the mirror pod until that cache has synced. Try again shortly.
      if (!reflector.hasSynced()) {
        log.debug("No need to create a mirror pod yet: the mirror pods have not been listed", fields, 4);
        retryShortly();
        return;
      }
      try {
        let mirror = mirrors.get(fullName);
        if (mirror && (mirror.metadata.deletionTimestamp || !isMirrorPodOf(mirror, pod))) {
          log.info("Trying to delete pod", { ...fields, podUID: mirror.metadata.uid });
          if (await deleteMirrorPod(mirror.metadata.namespace ?? "", mirror.metadata.name ?? "", mirror.metadata.uid, signal)) {
            log.info("Deleted mirror pod as it didn't match the static Pod", fields);
            mirrors.delete(fullName);
            mirror = undefined;
          }
        }
        if (mirror) return;
        const uid = await getNodeUID(signal);
        if (!uid) {
          // The Node is not registered yet (or is being deleted): try again shortly.
          retryShortly();
          return;
        }
        log.debug("Creating a mirror pod for static pod", fields, 4);
        const body = mirrorPodFor(pod, { name: nodeName, uid });
        try {
          const created = await client.create<Pod>(resourcePath({ apiVersion: "v1", resource: "pods", namespace: pod.metadata.namespace }), body, { signal });
          mirrors.set(fullName, created);
        } catch (err) {
          if (signal.aborted || isAlreadyExists(err)) return;
          log.error("Failed creating a mirror pod; retrying at the next sync", { ...fields, err });
        }
      } catch (err) {
        if (!signal.aborted) log.error("Mirror pod sync failed; retrying at the next sync", { ...fields, err });
      }
    },

    mirrorPodOf: (staticPod) => mirrors.get(podFullName(staticPod)),
    count: () => mirrors.size,

    async deleteOrphaned(hasStaticPod, signal) {
      for (const [fullName, mirror] of [...mirrors]) {
        if (hasStaticPod(fullName)) continue;
        try {
          if (await deleteMirrorPod(mirror.metadata.namespace ?? "", mirror.metadata.name ?? "", undefined, signal)) {
            mirrors.delete(fullName);
            log.debug("Deleted mirror pod", { podName: fullName }, 3);
          }
        } catch (err) {
          if (signal.aborted) return;
          log.error("Encountered error when deleting mirror pod", { podName: fullName, err });
        }
      }
    },
  };
}
