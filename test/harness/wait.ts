/**
 * The one polling wait of the test suite, for conditions that live in another process, the
 * kernel or a real socket (files, containers, HTTP answers): it calls check until it returns
 * something other than undefined, null or false, every intervalMs for at most timeoutMs of real
 * time. A check that throws counts as "not yet" and its error is kept. On timeout it fails naming
 * what it waited for, the last error, and whatever `detail` adds (a log tail, say); `giveUp` ends
 * it sooner when the answer can no longer come. Logic inside the test process waits on its own
 * events or a FakeClock instead.
 */
export interface WaitOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 20 ms. */
  intervalMs?: number;
  /** More to say on timeout. */
  detail?: () => string;
  /**
   * Asked after each check that is not yet the answer: a reason returned ends the wait at once
   * (what was waited for can no longer come, say the process that was to do it exited).
   */
  giveUp?: () => string | undefined;
}

type Answer<T> = T | undefined | null | false;

export async function waitFor<T>(what: string, check: () => Answer<T> | Promise<Answer<T>>, options: WaitOptions | number = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 20, detail, giveUp } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = performance.now() + timeoutMs;
  const failure = (message: string) => new Error(detail ? `${message}\n${detail()}` : message);
  let last: unknown;
  for (;;) {
    try {
      const answer = await check();
      if (answer !== undefined && answer !== null && answer !== false) return answer;
    } catch (err) {
      last = err;
    }
    const reason = giveUp?.();
    if (reason !== undefined) throw failure(`gave up waiting for ${what}: ${reason}`);
    if (performance.now() > deadline) {
      const why = last === undefined ? "" : `: ${last instanceof Error ? last.message : String(last)}`;
      throw failure(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await Bun.sleep(intervalMs);
  }
}
