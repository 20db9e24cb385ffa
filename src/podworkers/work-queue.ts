/**
 * The kubelet's work queue (pkg/kubelet/util/queue/work_queue.go): "sync this pod again at T".
 * The pod workers write it after every sync (resync interval, backoff, or at once on a phase
 * change); the sync loop drains the due UIDs every second. A new entry overwrites the old one,
 * so only the latest decision about a pod counts.
 */
import type { Clock } from "../lib/index.ts";

export class WorkQueue {
  readonly #clock: Clock;
  #due = new Map<string, number>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Schedules uid at now + delayMs, replacing any earlier schedule. */
  enqueue(uid: string, delayMs: number): void {
    this.#due.set(uid, this.#clock.now() + Math.max(0, delayMs));
  }

  /** Removes and returns every uid that is due (a delay of 0 is due at once). */
  getWork(): string[] {
    const now = this.#clock.now();
    const due: string[] = [];
    for (const [uid, at] of this.#due) {
      if (at <= now) due.push(uid);
    }
    for (const uid of due) this.#due.delete(uid);
    return due;
  }

  /** When uid is due, or undefined if it is not queued (for tests and debugging). */
  dueAt(uid: string): number | undefined {
    return this.#due.get(uid);
  }

  get size(): number {
    return this.#due.size;
  }
}
