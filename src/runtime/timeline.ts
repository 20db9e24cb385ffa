/**
 * The startup timeline of one pod start: milliseconds per step (pull, sandbox,
 * <container>.create, <container>.start), logged in one line and observed per step kind in
 * bunlet_pod_start_step_duration_seconds, so every pod start is explained.
 *
 * A pod start begins with the sync that creates its sandbox and may take several syncs (a failed
 * pull is retried after a backoff); its line is logged once, by the first sync that ends without
 * an error. Restarting a container of a running pod is not a pod start: its timeline is kept for
 * /pods but not logged.
 */
import type { ObjectRef } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";

export class StartTimeline {
  readonly steps = new Map<string, number>();
  #reported = false;

  /** podStart: this timeline began by creating the pod's sandbox at startedAt (clock ms). */
  constructor(readonly podStart: boolean, readonly startedAt: number) {}

  add(step: string, ms: number): void {
    this.steps.set(step, (this.steps.get(step) ?? 0) + ms);
  }

  get empty(): boolean {
    return this.steps.size === 0;
  }

  /** A pod start whose line is not logged yet: the next sync of the pod continues it. */
  get pending(): boolean {
    return this.podStart && !this.#reported;
  }

  /** One log line and one observation per step kind, once; the metric never carries container names. */
  report(log: Logger, metrics: Metrics, pod: ObjectRef, now: number): void {
    if (!this.pending) return;
    this.#reported = true;
    const totalMs = now - this.startedAt;
    const fields: Record<string, unknown> = { pod };
    for (const [step, ms] of this.steps) {
      fields[step] = `${ms}ms`;
      const kind = step.includes(".") ? step.slice(step.lastIndexOf(".") + 1) : step;
      metrics.podStartStepDuration.observe({ step: kind }, ms / 1000);
    }
    fields.total = `${totalMs}ms`;
    metrics.podStartStepDuration.observe({ step: "total" }, totalMs / 1000);
    log.info("pod started", fields);
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries(this.steps);
  }
}
