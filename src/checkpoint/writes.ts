/**
 * When the checkpoint's files are written. The checkpoint's memory changes at once (the pods, the
 * objects they reference); only the writes of the files, each with two fsyncs, are coalesced: at
 * most one round of writes a second. The first change after a quiet second is written at once; the
 * changes within the second after a write wait for its end and are written together, each file
 * once with its newest content. When the agent stops (its signal aborts) what waits is written at
 * once, and every later change too. A crash loses at most the last second of changes; the files
 * then hold the desired state as it was a second earlier, which is what a start from the
 * checkpoint needs (the apiserver's view replaces it as soon as it answers).
 *
 * Why: the apiserver source records the node's whole pod set at every watch event, and a pod's
 * start reads its Secrets, ConfigMaps and token, so a 100-pod burst rewrote pods.json hundreds of
 * times (a quarter of bunlet's CPU samples as a cluster node, most of it in fsync).
 */
import type { Clock, Timer } from "../lib/index.ts";

/** What can be written: a checkpoint file whose memory changed. */
export interface Writable {
  write(): void;
}

/** At most one round of writes in this many ms. */
const CHECKPOINT_WRITE_INTERVAL_MS = 1_000;

export class CoalescedWrites {
  readonly #clock: Clock;
  readonly #waiting = new Set<Writable>();
  #lastWrite = Number.NEGATIVE_INFINITY;
  #timer: Timer | undefined;
  /** Set once the agent stops: from then on every change is written at once. */
  #immediate = false;

  constructor(clock: Clock, signal?: AbortSignal) {
    this.#clock = clock;
    if (signal?.aborted) this.#immediate = true;
    signal?.addEventListener(
      "abort",
      () => {
        this.#immediate = true;
        this.flush();
      },
      { once: true },
    );
  }

  /** Files whose memory changed: written now if the last round is a second old, else at its end. */
  schedule(...files: Writable[]): void {
    for (const file of files) this.#waiting.add(file);
    if (this.#timer !== undefined) return;
    const wait = this.#immediate ? 0 : this.#lastWrite + CHECKPOINT_WRITE_INTERVAL_MS - this.#clock.now();
    if (wait <= 0) this.flush();
    else this.#timer = this.#clock.setTimer(wait, () => this.flush());
  }

  /** Writes every file that waits, now. */
  flush(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (this.#waiting.size === 0) return;
    const files = [...this.#waiting];
    this.#waiting.clear();
    this.#lastWrite = this.#clock.now();
    for (const file of files) file.write();
  }
}
