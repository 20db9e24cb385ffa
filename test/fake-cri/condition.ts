/**
 * "Wake me when this becomes true": the owner calls notify() after each change, waiters re-check
 * their predicate. Lets tests wait for the agent to reach the fake (a call arrived, a stream
 * opened) without polling or sleeping.
 */
export class Condition {
  readonly #waiters = new Set<() => void>();

  notify(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  until(predicate: () => boolean, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const cleanup = () => {
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
      };
      const check = () => {
        if (!predicate()) return;
        cleanup();
        resolve();
      };
      const onAbort = () => {
        cleanup();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(check);
      check();
    });
  }
}
