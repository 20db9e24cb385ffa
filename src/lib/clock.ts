/**
 * Time as a dependency. Logic takes a Clock so tests can drive it with FakeClock and never sleep.
 * Times are milliseconds since the Unix epoch.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Calls fn once after ms; the returned timer cancels it. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after ms, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
  sleep(ms, signal) {
    return sleepWith(realClock, ms, signal);
  },
};

interface FakeTimer {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Virtual time: nothing happens until advance() moves the clock; due timers fire in order. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer: FakeTimer = { due: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers still waiting to fire. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Moves time forward by ms, firing every timer that becomes due in (due, seq) order. Between
   * timers it lets promise callbacks run, so async code woken by one timer can set the next.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      this.#timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.#timers[0];
      if (!next || next.due > target) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, next.due);
      next.fn();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /**
   * Runs everything that is ready without moving time: every promise chain, until the event loop
   * reaches its next task, and every timer due now, over and over until neither is left. Throws
   * when work keeps coming (a loop that never waits on time).
   */
  async settle(maxRounds = 1000): Promise<void> {
    for (let round = 0; round < maxRounds; round++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.#timers.some((t) => !t.cancelled && t.due <= this.#now)) return;
      await this.advance(0);
    }
    throw new Error(`FakeClock.settle: still busy after ${maxRounds} rounds`);
  }
}

/** Lets pending promise reactions run (several turns, for chains of awaits). */
export async function flushMicrotasks(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}
