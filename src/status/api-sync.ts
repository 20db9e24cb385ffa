/**
 * The status manager's apiserver half (status_manager.go Start, syncBatch, syncPod): every change
 * the status manager records is sent to the apiserver, and every 10 s all statuses are checked
 * again (a failed update is retried then; a status the apiserver lost is sent again).
 *
 * Per pod: the apiserver's copy of the pod to patch against. The kubelet GETs it before every
 * patch; bunlet already holds it, newer or as new, and uses that instead while statuses flow (half
 * the requests of a status change in a burst): the pod as its watch last brought it (the pod
 * config keeps its resourceVersion) or the apiserver's answer to the last patch, whichever has the
 * higher resourceVersion. It GETs as the kubelet does when the apiserver has not answered this
 * sync within the last second (the GET is then also the probe that keeps a status from being
 * written into an apiserver that froze before the heartbeats found it out), when a copy has no
 * comparable resourceVersion (a pod started from the checkpoint before the first list), and after
 * a patch that failed (it may have been applied without bunlet hearing the answer). A pod that is gone, or whose UID is not
 * ours any more (deleted and recreated under the same name: the patch's UID precondition fails,
 * or the GET shows it), is never patched. The status sent is the merge of
 * ours into the apiserver's (other owners' conditions survive), as a strategic merge patch with
 * the UID as precondition. The version sent is remembered, so a status is sent once and an older
 * version never follows a newer one. A pod being deleted whose termination finished and whose
 * terminal phase reached the apiserver is then deleted (grace period 0, UID precondition), which
 * ends the graceful deletion the user started.
 *
 * A static pod's status goes to its mirror pod: the pod of the same name in the apiserver whose
 * `kubernetes.io/config.mirror` annotation is the static pod's config hash, as `mirrorPodOf` (the
 * hook the mirror-pod manager serves) finds it. Without one the static pod's status stays local
 * and the apiserver is not asked.
 */
import {
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  isStaticPod,
  podRef,
  podUID,
  type Pod,
} from "../api/index.ts";
import { isConflict, isNotFound, type ApiClient } from "../apiclient/index.ts";
import { delay, Mailbox, type Clock, type Logger } from "../lib/index.ts";
import type { StatusManager } from "./manager.ts";
import { comparableStatus, isPodStatusByKubeletEqual, normalizeStatus } from "./normalize.ts";
import { canBeDeleted, makeStatusPatch, mergePodStatus } from "./patch.ts";
import type { PodStartupLatencyTracker } from "./startup-latency.ts";

/** status_manager.go syncPeriod. */
const SYNC_PERIOD_MS = 10_000;

export interface StatusSyncDeps {
  client: Pick<ApiClient, "get" | "patch" | "delete">;
  statusManager: Pick<StatusManager, "getPodStatus" | "version" | "statusAt" | "isFinished" | "uids" | "onChange" | "deletePodStatus">;
  /** The desired pod of a UID (the pod manager), as its source last gave it. */
  podOf(uid: string): Pod | undefined;
  /** The mirror pod of a static pod, as the apiserver source last gave it; undefined if none. */
  mirrorPodOf(staticPod: Pod): Pod | undefined;
  /**
   * Resolves once the apiserver answers this node's heartbeats (at once when it does): after an
   * outage the Lease and the Node's status go first, and the pods' statuses wait for them.
   */
  answering?(signal: AbortSignal): Promise<void>;
  clock: Clock;
  log: Logger;
  metrics?: { podStatusSyncDuration: { observe(seconds: number): void } };
  /** The pod startup latency tracker: told of each status the apiserver accepted, and of pods forgotten. */
  startupLatency?: Pick<PodStartupLatencyTracker, "recordStatusUpdated" | "deletePodStartupState">;
}

export interface StatusSync {
  /** Sends statuses until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

function podPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
}

/** How recently the apiserver must have answered the status sync for a patch to go without a GET. */
const TRUST_ANSWERS_MS = 1_000;

/** An etcd revision: decimal, no leading zero. Anything else is not compared. */
const REVISION = /^[1-9][0-9]*$/;

/**
 * The newer of two copies of one apiserver object by resourceVersion, which an etcd-backed
 * apiserver gives as a revision number that only grows; undefined when a version is not one.
 */
export function newerCopy(a: Pod, b: Pod | undefined): Pod | undefined {
  const ra = a.metadata.resourceVersion ?? "";
  if (!REVISION.test(ra)) return undefined;
  if (b === undefined) return a;
  const rb = b.metadata.resourceVersion ?? "";
  if (!REVISION.test(rb)) return a;
  const bNewer = rb.length > ra.length || (rb.length === ra.length && rb > ra);
  return bNewer ? b : a;
}

/** What the status sync keeps of the apiserver's answer to a patch: what the next patch is computed against. */
function patchedCopy(pod: Pod): Pod {
  const { name, namespace, uid, resourceVersion, deletionTimestamp, annotations } = pod.metadata;
  return { metadata: { name, namespace, uid, resourceVersion, deletionTimestamp, annotations }, spec: { containers: [] }, status: pod.status };
}

export function createStatusSync(deps: StatusSyncDeps): StatusSync {
  const { client, statusManager, clock, log } = deps;
  /** The status version last accepted by the apiserver, by local pod UID (apiStatusVersions). */
  const sent = new Map<string, number>();
  /**
   * By local pod UID, the outcome of the last status patch: the apiserver's answer (see
   * patchedCopy), or "failed", after which the next sync reads the pod from the apiserver.
   */
  const lastPatch = new Map<string, Pod | "failed">();
  /** When the apiserver last answered a GET or a patch of this sync. */
  let answeredAt = Number.NEGATIVE_INFINITY;
  const dirty = new Set<string>();
  const wake = new Mailbox<true>();

  statusManager.onChange((uid) => {
    dirty.add(uid);
    wake.put(true);
  });

  const needsUpdate = (uid: string, pod: Pod): boolean => {
    const version = statusManager.version(uid);
    if (version === 0) return false;
    if ((sent.get(uid) ?? 0) < version) return true;
    return pod.metadata.deletionTimestamp !== undefined && statusManager.isFinished(uid);
  };

  /** The source's copy of the pod disagrees with our status: the apiserver lost an update. */
  const needsReconcile = (uid: string, pod: Pod): boolean => {
    if (isStaticPod(pod)) return false;
    const current = statusManager.getPodStatus(uid);
    if (current === undefined || pod.status === undefined) return false;
    const ours = comparableStatus(current);
    const theirs = comparableStatus(pod.status);
    normalizeStatus(pod, theirs);
    return !isPodStatusByKubeletEqual(theirs, ours);
  };

  /** The apiserver object to patch (the pod itself, or a static pod's mirror pod) as bunlet last saw it. */
  const target = async (uid: string, pod: Pod, signal: AbortSignal): Promise<Pod | undefined> => {
    // The object to patch is the pod itself, or the mirror pod known for a static pod.
    let object = pod;
    if (isStaticPod(pod)) {
      const mirror = deps.mirrorPodOf(pod);
      const hash = pod.metadata.annotations?.[ConfigHashAnnotationKey];
      if (mirror === undefined || hash === undefined || mirror.metadata.annotations?.[ConfigMirrorAnnotationKey] !== hash) {
        log.debug("Static pod does not have a corresponding mirror pod; skipping", { podUID: podUID(pod), pod: podRef(pod) }, 5);
        return undefined;
      }
      object = mirror;
    }
    const last = lastPatch.get(uid);
    const flowing = clock.now() - answeredAt <= TRUST_ANSWERS_MS;
    const answer = last !== "failed" && last?.metadata.uid === object.metadata.uid ? last : undefined;
    const known = !flowing || last === "failed" ? undefined : newerCopy(object, answer);
    if (known !== undefined) return known;
    let apiPod: Pod;
    try {
      apiPod = await client.get<Pod>(podPath(object.metadata.namespace ?? "default", object.metadata.name ?? ""), { signal });
      answeredAt = clock.now();
    } catch (err) {
      if (isNotFound(err)) {
        log.debug("Pod does not exist on the server", { podUID: podUID(object), pod: podRef(object) }, 3);
      } else if (!signal.aborted) {
        // Retried by the next resync (10 s): the version sent stays behind.
        log.info("Failed to get status for pod", { podUID: podUID(object), pod: podRef(object), err });
      }
      return undefined;
    }
    if (apiPod.metadata.uid !== podUID(object)) {
      log.debug("Pod was deleted and then recreated, skipping status update", { pod: podRef(object), oldPodUID: podUID(object), podUID: apiPod.metadata.uid }, 3);
      return undefined;
    }
    return apiPod;
  };

  const syncPod = async (uid: string, signal: AbortSignal): Promise<void> => {
    const pod = deps.podOf(uid);
    const status = statusManager.getPodStatus(uid);
    if (pod === undefined || status === undefined) return;
    const version = statusManager.version(uid);
    const finished = statusManager.isFinished(uid);
    const apiPod = await target(uid, pod, signal);
    if (apiPod === undefined) return;
    const apiUID = apiPod.metadata.uid ?? "";
    const oldStatus = comparableStatus(apiPod.status ?? {});
    const merged = mergePodStatus(oldStatus, comparableStatus(status), !finished);
    const patch = makeStatusPatch(apiUID, oldStatus, merged);
    let updated = apiPod;
    if (patch === undefined) {
      log.debug("Status for pod is up-to-date", { pod: podRef(apiPod), statusVersion: version }, 3);
    } else {
      log.debug("Patch status for pod", { pod: podRef(apiPod), podUID: uid, patch: JSON.stringify(patch) }, 3);
      // The GET may have been sent before an outage was known and answered after it: the
      // Lease and the Node's status still go first.
      if (!(await heartbeatFirst(signal))) return;
      try {
        updated = await client.patch<Pod>(`${podPath(apiPod.metadata.namespace ?? "default", apiPod.metadata.name ?? "")}/status`, patch, "strategic-merge", { signal });
      } catch (err) {
        // Retried by the next resync (10 s) against a fresh GET: the version sent stays behind.
        lastPatch.set(uid, "failed");
        if (isNotFound(err)) log.debug("Pod does not exist on the server", { podUID: apiUID, pod: podRef(apiPod) }, 3);
        else if (isConflict(err)) log.debug("Pod was deleted and then recreated, skipping status update", { pod: podRef(apiPod), oldPodUID: apiUID }, 3);
        else if (!signal.aborted) log.info("Failed to update status for pod", { pod: podRef(apiPod), err });
        return;
      }
      answeredAt = clock.now();
      lastPatch.set(uid, patchedCopy(updated));
      log.debug("Status for pod updated successfully", { pod: podRef(apiPod), statusVersion: version }, 3);
      deps.startupLatency?.recordStatusUpdated(updated);
    }
    // From the pod's first status to the apiserver holding this one (the kubelet keeps `at` from the first version).
    const at = statusManager.statusAt(uid);
    if (at !== undefined) deps.metrics?.podStatusSyncDuration.observe(Math.floor(clock.now() - at) / 1000);
    sent.set(uid, version);
    if (isStaticPod(pod) || !canBeDeleted(updated, finished)) return;
    if (!(await heartbeatFirst(signal))) return;
    try {
      await client.delete(podPath(updated.metadata.namespace ?? "default", updated.metadata.name ?? ""), { gracePeriodSeconds: 0, preconditions: { uid: apiUID }, signal });
    } catch (err) {
      // Gone already is as good as deleted; anything else is retried by the next resync.
      if (!isNotFound(err)) {
        if (!signal.aborted) log.info("Failed to delete status for pod", { pod: podRef(updated), err });
        return;
      }
    }
    log.debug("Pod fully terminated and removed from etcd", { pod: podRef(pod), podUID: uid }, 3);
    sent.delete(uid);
    lastPatch.delete(uid);
    statusManager.deletePodStatus(uid);
    deps.startupLatency?.deletePodStartupState(uid);
  };

  /** Waits while the node's heartbeats go unanswered; false when the signal aborted meanwhile. */
  const heartbeatFirst = async (signal: AbortSignal): Promise<boolean> => {
    await deps.answering?.(signal);
    return !signal.aborted;
  };

  const syncOne = async (uid: string, signal: AbortSignal): Promise<void> => {
    if (!(await heartbeatFirst(signal))) return;
    try {
      await syncPod(uid, signal);
    } catch (err) {
      if (signal.aborted) return;
      const pod = deps.podOf(uid);
      log.error("Pod status sync failed; retrying at the next status sync", { pod: pod ? podRef(pod) : "", podUID: uid, err });
    }
  };

  /** syncBatch(all): every status that needs an update or a reconcile; forgets UIDs gone. */
  const syncAll = async (signal: AbortSignal): Promise<void> => {
    const uids = new Set(statusManager.uids());
    for (const uid of [...sent.keys()]) if (!uids.has(uid)) sent.delete(uid);
    for (const uid of [...lastPatch.keys()]) if (!uids.has(uid)) lastPatch.delete(uid);
    for (const uid of uids) {
      if (signal.aborted) return;
      const pod = deps.podOf(uid);
      if (pod === undefined) continue;
      if (needsUpdate(uid, pod) || needsReconcile(uid, pod)) {
        if (needsReconcile(uid, pod)) sent.delete(uid);
        await syncOne(uid, signal);
      }
    }
  };

  return {
    async run(signal) {
      let nextFullSync = clock.now() + SYNC_PERIOD_MS;
      while (!signal.aborted) {
        const waitMs = Math.max(0, nextFullSync - clock.now());
        const woke = new AbortController();
        const stopWaiting = AbortSignal.any([signal, woke.signal]);
        const taking = wake.take(stopWaiting).then((v) => {
          if (v !== undefined) woke.abort();
        });
        await delay(clock, waitMs, stopWaiting);
        woke.abort();
        await taking;
        if (signal.aborted) return;
        const changed = [...dirty];
        dirty.clear();
        for (const uid of changed) {
          const pod = deps.podOf(uid);
          if (pod !== undefined && needsUpdate(uid, pod)) await syncOne(uid, signal);
        }
        if (clock.now() >= nextFullSync) {
          await syncAll(signal);
          nextFullSync = clock.now() + SYNC_PERIOD_MS;
        }
      }
    },
  };
}
