/**
 * A bounded FIFO channel with one or more consumers, in the spirit of Go channels and Deno's
 * std/async: send waits for room, trySend fails fast when full (the kubelet's "discard event"
 * path), receive waits for a value; every wait takes an AbortSignal. close() ends iteration once
 * the buffer is drained.
 */
export class ChannelClosedError extends Error {
  constructor() {
    super("channel is closed");
    this.name = "ChannelClosedError";
  }
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export class Channel<T> implements AsyncIterable<T> {
  readonly capacity: number;
  #buffer: T[] = [];
  #receivers: Waiter<T>[] = [];
  #senders: { value: T; waiter: Waiter<void> }[] = [];
  #closed = false;

  constructor(capacity: number) {
    if (!(capacity >= 0)) throw new RangeError(`channel capacity must be >= 0, got ${capacity}`);
    this.capacity = capacity;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Values buffered and not yet received. */
  get length(): number {
    return this.#buffer.length;
  }

  /** Puts value without waiting; false when the buffer is full or the channel is closed. */
  trySend(value: T): boolean {
    if (this.#closed) return false;
    const receiver = this.#receivers.shift();
    if (receiver) {
      receiver.resolve(value);
      return true;
    }
    if (this.#buffer.length >= this.capacity) return false;
    this.#buffer.push(value);
    return true;
  }

  /** Waits for room; rejects with ChannelClosedError if the channel is closed. */
  send(value: T, opts: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#closed) return Promise.reject(new ChannelClosedError());
    if (this.trySend(value)) return Promise.resolve();
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const entry = {
        value,
        waiter: {
          resolve: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
          reject: (reason: unknown) => {
            signal?.removeEventListener("abort", onAbort);
            reject(reason);
          },
        },
      };
      const onAbort = () => {
        this.#senders = this.#senders.filter((s) => s !== entry);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#senders.push(entry);
    });
  }

  /** Takes a value without waiting; undefined when none is buffered. */
  tryReceive(): { value: T } | undefined {
    if (this.#buffer.length > 0) {
      const value = this.#buffer.shift() as T;
      this.#admitSender();
      return { value };
    }
    const sender = this.#senders.shift();
    if (sender) {
      sender.waiter.resolve();
      return { value: sender.value };
    }
    return undefined;
  }

  /** Waits for a value; rejects with ChannelClosedError once closed and drained. */
  receive(opts: { signal?: AbortSignal } = {}): Promise<T> {
    const got = this.tryReceive();
    if (got) return Promise.resolve(got.value);
    if (this.#closed) return Promise.reject(new ChannelClosedError());
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        resolve: (v) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(v);
        },
        reject: (reason) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      const onAbort = () => {
        this.#receivers = this.#receivers.filter((r) => r !== waiter);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#receivers.push(waiter);
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const r of this.#receivers.splice(0)) r.reject(new ChannelClosedError());
    for (const s of this.#senders.splice(0)) s.waiter.reject(new ChannelClosedError());
  }

  #admitSender(): void {
    const sender = this.#senders.shift();
    if (!sender) return;
    this.#buffer.push(sender.value);
    sender.waiter.resolve();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      try {
        yield await this.receive();
      } catch (err) {
        if (err instanceof ChannelClosedError) return;
        throw err;
      }
    }
  }

  /** Iterates until the channel closes or the signal aborts (then it just stops). */
  async *iterate(signal: AbortSignal): AsyncGenerator<T> {
    for (;;) {
      try {
        yield await this.receive({ signal });
      } catch (err) {
        if (err instanceof ChannelClosedError || signal.aborted) return;
        throw err;
      }
    }
  }
}
