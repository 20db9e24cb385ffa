/**
 * Container garbage collection, all of it: the periodic GC (the kubelet's ContainerGCPeriod loop)
 * and the per-pod clean-up after a container died (podContainerDeletor). Every minute the runtime
 * manager removes dead containers beyond the per-pod limit and everything of pods that are gone;
 * when the PLEG reports ContainerDied the sync loop only queues a clean-up of that pod, and this
 * object carries the queue out in the background. The queue is bounded; a request that does not
 * fit is dropped, since the next death or the periodic GC removes the same containers.
 *
 * A pod counts as gone only once its owner says so (all sources ready, no source wants it, and its
 * worker allows its content to be removed); before that a freshly restarted bunlet could not tell
 * orphans from pods it has not been told about yet.
 */
import type { RuntimeManager } from "../runtime/index.ts";
import { Channel, delay, runEvery, type Clock, type Logger } from "../lib/index.ts";

/** ContainerGCPeriod. */
const CONTAINER_GC_PERIOD_MS = 60_000;
/** The kubelet's containerDeletor channel size. */
export const CONTAINER_DELETOR_CAPACITY = 50;

export interface ContainerGCDeps {
  runtime: Pick<RuntimeManager, "garbageCollect" | "cleanUpContainersInPod">;
  /** Whether everything of a pod may be removed: all sources ready, no source wants it, its worker agrees. */
  isPodGone(uid: string): boolean;
  clock: Clock;
  log: Logger;
}

export class ContainerGC {
  readonly #queue = new Channel<{ uid: string; removeAll: boolean }>(CONTAINER_DELETOR_CAPACITY);
  readonly #deps: ContainerGCDeps;

  constructor(deps: ContainerGCDeps) {
    this.#deps = deps;
  }

  /** Queues a clean-up of the pod's dead containers; false when the queue is full and the request was dropped. */
  deleteContainersInPod(uid: string, removeAll: boolean): boolean {
    const queued = this.#queue.trySend({ uid, removeAll });
    if (!queued) this.#deps.log.debug("Container clean-up queue is full; dropping request", { podUID: uid }, 3);
    return queued;
  }

  /** Carries out queued clean-ups and collects every minute (the first time one minute after start) until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#runDeletor(signal), this.#runPeriodic(signal)]);
  }

  async #runDeletor(signal: AbortSignal): Promise<void> {
    const { runtime, log } = this.#deps;
    for await (const { uid, removeAll } of this.#queue.iterate(signal)) {
      try {
        await runtime.cleanUpContainersInPod(uid, { removeAll, signal });
      } catch (err) {
        if (signal.aborted) return;
        log.warn("Failed to remove dead containers of pod; the container GC retries", { podUID: uid, err });
      }
    }
  }

  async #runPeriodic(signal: AbortSignal): Promise<void> {
    const { runtime, clock, log } = this.#deps;
    if (!(await delay(clock, CONTAINER_GC_PERIOD_MS, signal))) return;
    await runEvery(
      clock,
      () => CONTAINER_GC_PERIOD_MS,
      signal,
      () => runtime.garbageCollect((uid) => this.#deps.isPodGone(uid), { signal }),
      (err) => {
        if (!signal.aborted) log.error("Container garbage collection failed; retrying in a minute", { err });
      },
    );
  }
}
