/**
 * A one-slot mailbox where the latest value wins: put() replaces whatever is waiting, take()
 * waits for a value. The pod workers use it so a worker only ever sees the newest update.
 * A mailbox has a single consumer: one take() waits at a time.
 */
export class Mailbox<T> {
  #slot: { value: T } | undefined;
  #waiter: ((v: { value: T } | undefined) => void) | undefined;

  /** Replaces the pending value (if any) and returns the replaced one. */
  put(value: T): T | undefined {
    const replaced = this.#slot?.value;
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w({ value });
      return undefined;
    }
    this.#slot = { value };
    return replaced;
  }

  peek(): T | undefined {
    return this.#slot?.value;
  }

  get hasValue(): boolean {
    return this.#slot !== undefined;
  }

  tryTake(): T | undefined {
    const slot = this.#slot;
    this.#slot = undefined;
    return slot?.value;
  }

  /** Waits for the next value; resolves undefined if the signal aborts first. */
  take(signal?: AbortSignal): Promise<T | undefined> {
    if (this.#slot) return Promise.resolve(this.tryTake());
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (v: { value: T } | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(v?.value);
      };
      const onAbort = () => {
        if (this.#waiter === waiter) this.#waiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiter = waiter;
    });
  }
}
