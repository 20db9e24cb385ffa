/**
 * PodStorage: the kubelet's podStorage (pkg/kubelet/config/config.go). It holds, per source, the
 * pods last seen (by UID) and turns each full snapshot from a source into the minimal ordered
 * PodUpdates the sync loop acts on. It is pure bookkeeping (no I/O); PodConfig owns it and feeds
 * it one snapshot at a time.
 */
import {
  ConfigFirstSeenAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  podRef,
  type Pod,
} from "../api/index.ts";
import { cloneJson, deepEqual, type Clock, type Logger } from "../lib/index.ts";

export type PodOperation = "ADD" | "UPDATE" | "DELETE" | "REMOVE" | "RECONCILE";

export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

/** A pod dropped from a snapshot (the kubelet records a FailedValidation event for it). */
export interface InvalidPodEvent {
  pod: Pod;
  source: string;
  reason: "DuplicatePodName" | "DuplicatePodUID";
  message: string;
}

export interface PodStorageOptions {
  /** The configured sources; readiness needs a snapshot from each. */
  sources: string[];
  clock: Clock;
  log: Logger;
  onInvalid?: (event: InvalidPodEvent) => void;
}

/** Annotations the kubelet itself sets; they never make two pods differ. */
const localAnnotations = [ConfigSourceAnnotationKey, ConfigMirrorAnnotationKey, ConfigFirstSeenAnnotationKey];

function withoutLocal(annotations: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations ?? {})) if (!localAnnotations.includes(k)) out[k] = v;
  return out;
}

/** The kubelet's podsDifferSemantically: what makes a change more than a status refresh. */
function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  const a = existing.metadata;
  const b = ref.metadata;
  return !(
    deepEqual(existing.spec, ref.spec) &&
    deepEqual(a.labels, b.labels) &&
    a.deletionTimestamp === b.deletionTimestamp &&
    a.deletionGracePeriodSeconds === b.deletionGracePeriodSeconds &&
    deepEqual(withoutLocal(a.annotations), withoutLocal(b.annotations))
  );
}

type Change = "update" | "delete" | "reconcile" | "none";

/**
 * Folds ref into existing (the stored copy) and says what kind of change that was. ref belongs to
 * the source: what the stored pod takes from it is copied. Beyond the kubelet's PodStorage, a
 * change also brings the source's resourceVersion, so the stored pod says which version of the
 * apiserver's object its status is (the status sync patches against it instead of a GET).
 */
function checkAndUpdatePod(existing: Pod, ref: Pod): Change {
  if (!podsDifferSemantically(existing, ref)) {
    if (deepEqual(existing.status ?? {}, ref.status ?? {})) return "none";
    existing.status = cloneJson(ref.status);
    existing.metadata.resourceVersion = ref.metadata.resourceVersion;
    return "reconcile";
  }
  // The source's annotations, but bunlet's own (first-seen time above all) stay as they were.
  const annotations = { ...ref.metadata.annotations };
  for (const key of localAnnotations) {
    const kept = existing.metadata.annotations?.[key];
    if (kept !== undefined) annotations[key] = kept;
  }
  existing.spec = cloneJson(ref.spec);
  existing.status = cloneJson(ref.status);
  existing.metadata = {
    ...existing.metadata,
    labels: ref.metadata.labels && { ...ref.metadata.labels },
    deletionTimestamp: ref.metadata.deletionTimestamp,
    deletionGracePeriodSeconds: ref.metadata.deletionGracePeriodSeconds,
    generation: ref.metadata.generation,
    resourceVersion: ref.metadata.resourceVersion,
    annotations,
  };
  return ref.metadata.deletionTimestamp !== undefined ? "delete" : "update";
}

/** Go's RFC3339NanoFixed, which the kubelet uses for config.seen (milliseconds padded). */
function formatSeenTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");
}

export class PodStorage {
  readonly #sources: string[];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #onInvalid?: (event: InvalidPodEvent) => void;
  /** source → UID → the stored pod (never handed out; updates carry copies). */
  readonly #pods = new Map<string, Map<string, Pod>>();
  /**
   * source → UID → the source's own object last folded into the stored pod. The apiserver
   * source's store hands out the same object for every pod that did not change, so a snapshot
   * after one watch event costs a comparison for that one pod, not for every pod on the node.
   */
  readonly #folded = new Map<string, Map<string, Pod>>();
  readonly #seen = new Set<string>();

  constructor(opts: PodStorageOptions) {
    this.#sources = [...opts.sources];
    this.#clock = opts.clock;
    this.#log = opts.log;
    this.#onInvalid = opts.onInvalid;
  }

  /**
   * Replaces the source's pods with this full snapshot and returns the updates, in the
   * kubelet's order: REMOVE, ADD, UPDATE, DELETE, the empty ADD that marks a source's first
   * snapshot when there was nothing else to say, RECONCILE. The input is not modified.
   */
  merge(source: string, snapshot: Pod[]): PodUpdate[] {
    const firstSnapshot = !this.#seen.has(source);
    this.#seen.add(source);
    const old = this.#pods.get(source) ?? new Map<string, Pod>();
    const folded = this.#folded.get(source) ?? new Map<string, Pod>();
    const next = new Map<string, Pod>();
    const nextFolded = new Map<string, Pod>();
    const adds: Pod[] = [];
    const updates: Pod[] = [];
    const deletes: Pod[] = [];
    const reconciles: Pod[] = [];

    for (const ref of this.#filterInvalid(source, snapshot)) {
      const uid = ref.metadata.uid ?? "";
      const existing = old.get(uid);
      nextFolded.set(uid, ref);
      if (existing) {
        next.set(uid, existing);
        // The very object folded last time (sources never change a pod they handed over): no change.
        if (folded.get(uid) === ref) continue;
        const change = checkAndUpdatePod(existing, ref);
        if (change === "update") updates.push(existing);
        else if (change === "delete") deletes.push(existing);
        else if (change === "reconcile") reconciles.push(existing);
        continue;
      }
      const pod = cloneJson(ref);
      pod.metadata.annotations = { ...pod.metadata.annotations, [ConfigSourceAnnotationKey]: source, [ConfigFirstSeenAnnotationKey]: formatSeenTime(this.#clock.now()) };
      this.#log.debug("Receiving a new pod", { pod: podRef(pod), source }, 4);
      next.set(uid, pod);
      adds.push(pod);
    }
    const removes = [...old].filter(([uid]) => !next.has(uid)).map(([, pod]) => pod);
    this.#pods.set(source, next);
    this.#folded.set(source, nextFolded);

    const out: PodUpdate[] = [];
    const emit = (op: PodOperation, pods: Pod[]) => out.push({ op, source, pods: pods.map((p) => cloneJson(p)) });
    if (removes.length > 0) emit("REMOVE", removes);
    if (adds.length > 0) emit("ADD", adds);
    if (updates.length > 0) emit("UPDATE", updates);
    if (deletes.length > 0) emit("DELETE", deletes);
    if (firstSnapshot && adds.length + updates.length + deletes.length === 0) emit("ADD", []);
    if (reconciles.length > 0) emit("RECONCILE", reconciles);
    return out;
  }

  /** True once every configured source has delivered at least one snapshot. */
  allSourcesSeen(): boolean {
    return this.#sources.every((s) => this.#seen.has(s));
  }

  /** The kubelet's SeenAllSources: the consumer has seen every source, and so has the storage. */
  seenAllSources(seenByConsumer: ReadonlySet<string>): boolean {
    return this.#sources.every((s) => seenByConsumer.has(s)) && this.allSourcesSeen();
  }

  /** Copies of every stored pod, by source (for /pods and debugging). */
  pods(source?: string): Pod[] {
    const sources = source === undefined ? [...this.#pods.keys()] : [source];
    return sources.flatMap((s) => [...(this.#pods.get(s)?.values() ?? [])].map((p) => cloneJson(p)));
  }

  /** The snapshot minus later pods that repeat a namespace/name (or a UID); nothing is copied. */
  #filterInvalid(source: string, snapshot: Pod[]): Pod[] {
    const names = new Set<string>();
    const uids = new Set<string>();
    const kept: Pod[] = [];
    snapshot.forEach((pod, index) => {
      const ref = podRef(pod);
      const name = String(ref);
      const uid = pod.metadata.uid ?? "";
      const reason = names.has(name) ? "DuplicatePodName" : uids.has(uid) ? "DuplicatePodUID" : undefined;
      if (reason) {
        const message = `Error validating pod ${name} from ${source} due to duplicate ${reason === "DuplicatePodName" ? `pod name ${JSON.stringify(pod.metadata.name)}` : `pod UID ${JSON.stringify(uid)}`}, ignoring`;
        this.#log.warn("Pod failed validation due to a duplicate, ignoring it", { pod: ref, podUID: uid, source, index, reason });
        this.#onInvalid?.({ pod: cloneJson(pod), source, reason, message });
        return;
      }
      names.add(name);
      uids.add(uid);
      kept.push(pod);
    });
    return kept;
  }
}
