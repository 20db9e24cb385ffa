/**
 * Probe results per container (the kubelet's prober/results.Manager): one ResultsManager per
 * probe type holds the latest result for each container id and publishes every change on a
 * bounded update channel that the sync loop consumes. The probe workers are the only writers;
 * status generation and computePodActions read it.
 */
import { Channel } from "../lib/index.ts";

export type ProbeResult = "Success" | "Failure" | "Unknown";

export interface ProbeUpdate {
  podUID: string;
  /** CRI container id (no `containerd://` prefix). */
  containerId: string;
  containerName: string;
  result: ProbeResult;
}

/** The kubelet's results channel holds 20 updates; a full channel makes the workers wait. */
const RESULTS_UPDATES_CAPACITY = 20;

export class ResultsManager {
  readonly updates: Channel<ProbeUpdate>;
  readonly #cache = new Map<string, ProbeResult>();

  constructor(capacity = RESULTS_UPDATES_CAPACITY) {
    this.updates = new Channel<ProbeUpdate>(capacity);
  }

  get(containerId: string): ProbeResult | undefined {
    return this.#cache.get(containerId);
  }

  /**
   * Records the result at once (readers see it immediately) and, when it changed, sends an
   * update, waiting for room as the kubelet's unbuffered hand-off does. If the signal aborts
   * while waiting (the worker was stopped) the update is dropped; the cached value stays.
   */
  async set(update: ProbeUpdate, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const previous = this.#cache.get(update.containerId);
    this.#cache.set(update.containerId, update.result);
    if (previous === update.result) return;
    if (this.updates.trySend(update)) return;
    try {
      await this.updates.send(update, opts);
    } catch (err) {
      if (opts.signal?.aborted || this.updates.closed) return;
      throw err;
    }
  }

  /** Forgets the container's result; no update is sent (as upstream). */
  remove(containerId: string): void {
    this.#cache.delete(containerId);
  }

  /** Number of containers with a result. */
  get size(): number {
    return this.#cache.size;
  }

  close(): void {
    this.updates.close();
  }
}

/** A status containerID (`containerd://<id>`) or a bare CRI id → the bare id. */
export function parseContainerId(containerId: string): string {
  const at = containerId.indexOf("://");
  return at === -1 ? containerId : containerId.slice(at + 3);
}
