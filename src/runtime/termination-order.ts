/**
 * Sidecar termination ordering (kuberuntime_termination_order.go): when a pod with sidecars stops,
 * regular containers stop first, then sidecars in reverse spec order. Each sidecar waits, within
 * its remaining grace period, until every container it outlives has terminated.
 */
import type { Pod } from "../api/index.ts";
import type { Clock } from "../lib/index.ts";
import { isRestartableInitContainer } from "../container/index.ts";

export class TerminationOrdering {
  #waitFor = new Map<string, Set<string>>();
  #waiters = new Set<() => void>();

  constructor(
    pod: Pod,
    runningNames: string[],
    private readonly clock: Clock,
  ) {
    const running = new Set(runningNames);
    const regular = pod.spec.containers.map((c) => c.name).filter((n) => running.has(n));
    const sidecars = (pod.spec.initContainers ?? []).filter(isRestartableInitContainer).map((c) => c.name);
    sidecars.forEach((name, i) => {
      // A sidecar outlives the regular containers and the sidecars declared after it.
      const later = sidecars.slice(i + 1).filter((n) => running.has(n));
      this.#waitFor.set(name, new Set([...regular, ...later]));
    });
  }

  /** Waits for this container's turn, at most graceSeconds; returns the whole seconds waited. */
  async waitForTurn(name: string, graceSeconds: number, signal?: AbortSignal): Promise<number> {
    const pending = this.#waitFor.get(name);
    if (!pending || pending.size === 0) return 0;
    const started = this.clock.now();
    await new Promise<void>((resolve) => {
      const done = () => {
        timer.cancel();
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const check = () => {
        if (pending.size === 0) done();
      };
      const timer = this.clock.setTimer(graceSeconds * 1000, done);
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.add(check);
      check();
    });
    return Math.floor((this.clock.now() - started) / 1000);
  }

  containerTerminated(name: string): void {
    for (const set of this.#waitFor.values()) set.delete(name);
    for (const check of [...this.#waiters]) check();
  }
}
