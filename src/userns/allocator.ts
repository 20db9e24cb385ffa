/**
 * The range allocator of the kubelet's UsernsManager (pkg/kubelet/userns/userns_manager.go): the
 * node's IDs for pods, from the kubelet user's subordinate IDs or the default range, cut into
 * slots of idsPerPod (65536 unless userNamespaces.idsPerPod says otherwise). A slot is one pod's
 * range; no two pods hold the same slot. Pure: the random source is injected, nothing touches disk.
 */

/** userNsUnitLength: every range is a multiple of this. */
const USERNS_UNIT_LENGTH = 65536;

export interface RangeAllocatorOptions {
  /** The first host ID the node gives pods (getKubeletMappings). */
  firstId: number;
  /** How many host IDs the node gives pods. */
  length: number;
  idsPerPod: number;
  /** maxPods: the node's IDs must cover this many pods. */
  maxPods: number;
  /** [0, 1): where the scan for a free slot starts (the kubelet's random scan). */
  random: () => number;
}

/** A pod's range: host IDs [hostId, hostId + length) mapped to container IDs [0, length). */
export interface PodRange {
  hostId: number;
  length: number;
}

/** Refused by MakeUserNsManager: the node's IDs cannot be cut into pod ranges. */
export class UsernsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsernsConfigError";
  }
}

/** The allocator's own refusals (record, allocate), with the kubelet's words. */
export class UsernsAllocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsernsAllocationError";
  }
}

export class RangeAllocator {
  readonly idsPerPod: number;
  /** Index of the first slot: firstId / idsPerPod. */
  readonly #off: number;
  /** Number of slots. */
  readonly #len: number;
  readonly #random: () => number;
  /** Slot index → pod UID, and pod UID → first host ID. */
  readonly #slots = new Map<number, string>();
  readonly #usedBy = new Map<string, number>();

  constructor(opts: RangeAllocatorOptions) {
    const { firstId, length, idsPerPod, maxPods } = opts;
    if (idsPerPod % USERNS_UNIT_LENGTH !== 0) {
      throw new UsernsConfigError(`kubelet user namespace length ${idsPerPod} is not a multiple of ${USERNS_UNIT_LENGTH}`);
    }
    if (firstId % idsPerPod !== 0) throw new UsernsConfigError(`kubelet user assigned ID ${firstId} is not a multiple of ${idsPerPod}`);
    // Mapping host ID 0 into a pod would circumvent the isolation.
    if (firstId < idsPerPod) throw new UsernsConfigError(`kubelet user assigned ID ${firstId} must be greater or equal to ${idsPerPod}`);
    if (length % idsPerPod !== 0) throw new UsernsConfigError(`kubelet user assigned IDs length ${length} is not a multiple of ${idsPerPod}`);
    if (Math.floor(length / idsPerPod) < maxPods) throw new UsernsConfigError(`kubelet user assigned IDs are not enough to support ${maxPods} pods`);
    this.idsPerPod = idsPerPod;
    this.#off = firstId / idsPerPod;
    this.#len = length / idsPerPod;
    this.#random = opts.random;
  }

  /** The first host ID of the pod's range, if it holds one. */
  get(uid: string): number | undefined {
    return this.#usedBy.get(uid);
  }

  /** The pods holding a range. */
  uids(): string[] {
    return [...this.#usedBy.keys()];
  }

  /** A free slot for the pod (allocateOne): a random start, then the next free one. */
  allocate(uid: string): PodRange {
    if (this.#usedBy.has(uid)) throw new UsernsAllocationError(`different user namespace range already used by pod "${uid}"`);
    if (this.#slots.size >= this.#len) throw new UsernsAllocationError("could not find an empty slot to allocate a user namespace");
    const start = Math.floor(this.#random() * this.#len) % this.#len;
    for (let i = 0; i < this.#len; i++) {
      const index = (start + i) % this.#len;
      if (this.#slots.has(index)) continue;
      const hostId = (index + this.#off) * this.idsPerPod;
      this.#slots.set(index, uid);
      this.#usedBy.set(uid, hostId);
      return { hostId, length: this.idsPerPod };
    }
    throw new UsernsAllocationError("could not find an empty slot to allocate a user namespace");
  }

  /** Takes the range a pod already has (its mappings file) as the kubelet's record does. */
  record(uid: string, from: number, length: number): void {
    if (length !== this.idsPerPod) throw new UsernsAllocationError(`wrong user namespace length ${length}`);
    if (from % this.idsPerPod !== 0) throw new UsernsAllocationError(`wrong user namespace offset specified ${from}`);
    const prevFrom = this.#usedBy.get(uid);
    if (prevFrom !== undefined && prevFrom !== from) throw new UsernsAllocationError(`different user namespace range already used by pod "${uid}"`);
    const index = from / this.idsPerPod - this.#off;
    if (index < 0 || index >= this.#len) throw new UsernsAllocationError(`id ${from} is out of range`);
    if (prevFrom === undefined && this.#slots.has(index)) throw new UsernsAllocationError(`range picked for pod "${uid}" already taken`);
    if (prevFrom === from) return;
    this.#slots.set(index, uid);
    this.#usedBy.set(uid, from);
  }

  /** Frees the pod's slot; false when it held none. */
  release(uid: string): boolean {
    const from = this.#usedBy.get(uid);
    if (from === undefined) return false;
    this.#usedBy.delete(uid);
    this.#slots.delete(from / this.idsPerPod - this.#off);
    return true;
  }
}
