/**
 * Runs tasks one at a time per key, in submission order; different keys run concurrently.
 * Keys with no queued work are forgotten so the map does not grow without bound.
 */
export class KeyedSequencer<K> {
  #tails = new Map<K, Promise<unknown>>();

  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.#tails.size;
  }

  /** Resolves when every task queued so far has settled. */
  async whenIdle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
