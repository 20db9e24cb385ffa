/**
 * The startup timeline of one pod start: milliseconds per step (pull, sandbox,
 * <container>.create, <container>.start), logged in one line and observed per step kind in
 * bunlet_pod_start_step_duration_seconds, so every pod start is explained.
 */
import type { Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";

export class StartTimeline {
  readonly steps = new Map<string, number>();

  add(step: string, ms: number): void {
    this.steps.set(step, (this.steps.get(step) ?? 0) + ms);
  }

  get empty(): boolean {
    return this.steps.size === 0;
  }

  /** One log line and one observation per step kind; the metric never carries container names. */
  report(log: Logger, metrics: Metrics, pod: string, totalMs: number): void {
    const fields: Record<string, string> = { pod };
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
