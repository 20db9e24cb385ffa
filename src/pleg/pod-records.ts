import type { RuntimePod } from "../container/index.ts";
/**
 * The generic PLEG's memory of the runtime (podRecords in generic.go): per pod UID, what the last
 * acknowledged relist saw (old) and what this relist sees (current). A pod's record only moves
 * forward once its events went out, so a pod whose status could not be read is compared against
 * the same old view again next time and its change is not lost.
 */

interface PodRecord {
  old?: RuntimePod;
  current?: RuntimePod;
}

export class PodRecords {
  #records = new Map<string, PodRecord>();

  getOld(uid: string): RuntimePod | undefined {
    return this.#records.get(uid)?.old;
  }

  getCurrent(uid: string): RuntimePod | undefined {
    return this.#records.get(uid)?.current;
  }

  /** Replaces every current view with this relist's pods (pods not listed become absent). */
  setCurrent(pods: RuntimePod[]): void {
    for (const record of this.#records.values()) record.current = undefined;
    for (const pod of pods) this.setCurrentPod(pod);
  }

  /** Replaces one pod's current view (a single-pod relist); the others keep theirs. */
  setCurrentPod(pod: RuntimePod): void {
    const record = this.#records.get(pod.uid);
    if (record) record.current = pod;
    else this.#records.set(pod.uid, { current: pod });
  }

  /** Acknowledges the pod's current view; a pod that is gone is forgotten. */
  update(uid: string): void {
    const record = this.#records.get(uid);
    if (!record) return;
    if (!record.current) {
      this.#records.delete(uid);
      return;
    }
    record.old = record.current;
    record.current = undefined;
  }

  uids(): string[] {
    return [...this.#records.keys()];
  }
}
