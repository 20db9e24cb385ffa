/**
 * Removes dead containers of a pod off the sync loop (the kubelet's podContainerDeletor): the
 * loop only queues a request when the PLEG reports ContainerDied; one background task carries the
 * requests out against the runtime. The queue is bounded; when it is full the request is dropped,
 * since the next death or the periodic container GC removes the same containers.
 */
import { Channel, type Logger } from "../lib/index.ts";

/** The kubelet's containerDeletor channel size. */
export const CONTAINER_DELETOR_CAPACITY = 50;

export interface ContainerDeletorDeps {
  cleanUpContainersInPod(uid: string, opts: { removeAll: boolean }): Promise<void>;
  log: Logger;
}

export class ContainerDeletor {
  readonly #queue = new Channel<{ uid: string; removeAll: boolean }>(CONTAINER_DELETOR_CAPACITY);
  readonly #deps: ContainerDeletorDeps;

  constructor(deps: ContainerDeletorDeps) {
    this.#deps = deps;
  }

  /** Queues a clean-up; false when the queue is full and the request was dropped. */
  deleteContainersInPod(uid: string, removeAll: boolean): boolean {
    const queued = this.#queue.trySend({ uid, removeAll });
    if (!queued) this.#deps.log.debug("Container clean-up queue is full; dropping request", { podUID: uid }, 3);
    return queued;
  }

  /** Carries out queued requests until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    for await (const { uid, removeAll } of this.#queue.iterate(signal)) {
      try {
        await this.#deps.cleanUpContainersInPod(uid, { removeAll });
      } catch (err) {
        if (signal.aborted) return;
        this.#deps.log.warn("Failed to remove dead containers of pod; the container GC retries", { podUID: uid, err });
      }
    }
  }
}
