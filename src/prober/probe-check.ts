/**
 * One probe of one container as the worker sees it (the kubelet's prober.probe): run it, retry
 * up to three times while it cannot be run at all, and reduce the outcome to a result. Warning
 * counts as success and Unknown as failure; a probe that never ran gives no result (undefined),
 * which the worker ignores. Failures are logged with the probe's output, as the kubelet's
 * "Probe failed" lines.
 */
import type { Container, ObjectRef, Probe } from "../api/index.ts";
import { EventReason } from "../events/index.ts";
import type { Logger } from "../lib/index.ts";
import type { ProbeResult } from "./results.ts";
import { runProbe, type ProbeTarget } from "./probe-run.ts";
import { ProbeError, type ProbeOutcome } from "./probe-types.ts";

export type ProbeType = "liveness" | "readiness" | "startup";

/** prober.go maxProbeRetries: attempts while the probe errors (not while it fails). */
const MAX_PROBE_RETRIES = 3;

export interface CheckRequest {
  probeType: ProbeType;
  spec: Probe;
  container: Container;
  /** The pod as logs name it. */
  pod: ObjectRef;
  podUID: string;
  target: ProbeTarget;
  log: Logger;
  /** Records an event about the container (the kubelet's recordContainerEvent). */
  event(type: "Normal" | "Warning", reason: string, message: string): void;
}

/** The probe type as the kubelet's events spell it. */
const EVENT_PROBE_TYPE: Record<ProbeType, string> = { liveness: "Liveness", readiness: "Readiness", startup: "Startup" };

/** Runs a probe against a container; resolves to Success/Failure, or undefined when it could not run. */
export type ContainerChecker = (req: CheckRequest) => Promise<ProbeResult | undefined>;

export const checkContainer: ContainerChecker = async (req) => {
  const fields = { probeType: req.probeType, pod: req.pod, podUID: req.podUID, containerName: req.container.name };
  let outcome: ProbeOutcome | undefined;
  let lastError: unknown;
  for (let attempt = 0; attempt < MAX_PROBE_RETRIES && outcome === undefined; attempt++) {
    try {
      outcome = await runProbe(req.spec, req.target);
    } catch (err) {
      // A stopped worker ends its probe; only a probe that could not run is retried.
      if (req.target.signal?.aborted) throw req.target.signal.reason;
      if (!(err instanceof ProbeError)) throw err;
      lastError = err;
    }
  }
  if (outcome === undefined) {
    req.log.warn("Probe errored; the result is ignored until the next period", { ...fields, err: lastError });
    req.event("Warning", EventReason.ContainerUnhealthy, `${EVENT_PROBE_TYPE[req.probeType]} probe errored and resulted in unknown state: ${(lastError as Error).message}`);
    return undefined;
  }
  switch (outcome.result) {
    case "Success":
      req.log.debug("Probe succeeded", fields, 3);
      return "Success";
    case "Warning":
      req.log.info("Probe succeeded with a warning", { ...fields, output: outcome.output });
      req.event("Warning", EventReason.ContainerProbeWarning, `${EVENT_PROBE_TYPE[req.probeType]} probe warning: ${outcome.output}`);
      return "Success";
    default:
      req.log.info("Probe failed", { ...fields, probeResult: outcome.result.toLowerCase(), output: outcome.output });
      // An Unknown outcome is a failure without an event, as in the kubelet.
      if (outcome.result === "Failure") req.event("Warning", EventReason.ContainerUnhealthy, `${EVENT_PROBE_TYPE[req.probeType]} probe failed: ${outcome.output}`);
      return "Failure";
  }
};
