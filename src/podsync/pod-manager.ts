/**
 * The desired pods: what the config sources currently want on this node, by UID (the kubelet's
 * podManager, without mirror pods since bunlet has no apiserver yet). Only the sync loop writes
 * it; the pod syncer, housekeeping and /pods read it.
 */
import { ConfigFirstSeenAnnotationKey, isStaticPod, podFullName, podUID, podRef, type Pod, type PodList, type PodStatus } from "../api/index.ts";

export class PodManager {
  #pods = new Map<string, Pod>();
  #firstSeen = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Adds or replaces the pod (ADD and UPDATE carry the whole object). */
  upsert(pod: Pod): void {
    const uid = podUID(pod);
    this.#pods.set(uid, pod);
    if (!this.#firstSeen.has(uid)) this.#firstSeen.set(uid, firstSeenAnnotation(pod) ?? this.#now());
  }

  remove(pod: Pod): void {
    const uid = podUID(pod);
    this.#pods.delete(uid);
    this.#firstSeen.delete(uid);
  }

  get(uid: string): Pod | undefined {
    return this.#pods.get(uid);
  }

  has(uid: string): boolean {
    return this.#pods.has(uid);
  }

  /** All desired pods, oldest first (creation time, then name) so listings are stable. */
  pods(): Pod[] {
    return sortByCreation([...this.#pods.values()]);
  }

  /** The desired static pods of that full name (a mirror pod that changed has them synced). */
  staticPods(fullName: string): Pod[] {
    return this.pods().filter((p) => isStaticPod(p) && podFullName(p) === fullName);
  }

  uids(): Set<string> {
    return new Set(this.#pods.keys());
  }

  /** The desired pods as /pods shows them: each with the status bunlet computed, if any yet. */
  podList(statusOf: (uid: string) => PodStatus | undefined): PodList {
    const items = this.pods().map((pod) => ({ ...pod, status: statusOf(podUID(pod)) ?? pod.status }));
    return { apiVersion: "v1", kind: "PodList", metadata: {}, items };
  }

  /** When bunlet first saw the pod: the config.seen annotation the sources stamp, else upsert time. */
  firstSeen(uid: string): number | undefined {
    return this.#firstSeen.get(uid);
  }
}

function firstSeenAnnotation(pod: Pod): number | undefined {
  const value = pod.metadata.annotations?.[ConfigFirstSeenAnnotationKey];
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The kubelet admits additions in creation order; ties keep a deterministic order by name. */
export function sortByCreation(pods: Pod[]): Pod[] {
  const created = (p: Pod) => {
    const ms = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : NaN;
    return Number.isNaN(ms) ? 0 : ms;
  };
  return [...pods].sort(
    (a, b) =>
      created(a) - created(b) ||
      String(podRef(a)).localeCompare(String(podRef(b))),
  );
}
