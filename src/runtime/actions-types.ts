/**
 * The plan computePodActions returns (the kubelet's podActions), and the read-only view of probe
 * results it consults. Indexes point into pod.spec.containers / initContainers /
 * ephemeralContainers; containersToKill keeps the order in which the plan decided.
 */
import type { ContainersToUpdate } from "./resize-actions.ts";

/** Why a container is killed; it selects the grace period (probe-level overrides) and the log. */
export type KillReason = "" | "StartupProbe" | "LivenessProbe" | "FailedPostStartHook" | "Unknown";

export interface ContainerToKill {
  /** CRI container id. */
  id: string;
  name: string;
  message: string;
  reason: KillReason;
}

export interface PodActions {
  /** Stop every container and the sandbox(es). */
  killPod: boolean;
  /** Run a new sandbox (implies killPod). */
  createSandbox: boolean;
  /** The existing sandbox the containers go into ("" when none). */
  sandboxId: string;
  /** Sandbox attempt for a new sandbox (or of the current one). */
  attempt: number;
  /** Init containers to start, in spec order; a failing regular init container stops the rest. */
  initContainersToStart: number[];
  containersToStart: number[];
  ephemeralContainersToStart: number[];
  containersToKill: ContainerToKill[];
  /** Running containers resized in place (computePodResizeAction); absent when none. */
  containersToUpdate?: ContainersToUpdate;
  /** A resized container restarts (RestartContainer): the pod cgroup follows the allocation. */
  updatePodResources?: boolean;
}

export type ProbeResult = "Success" | "Failure" | "Unknown";

/** What the prober last said about a container; undefined = the probe has not run yet. */
export interface ProbeResultsView {
  liveness(containerId: string): ProbeResult | undefined;
  startup(containerId: string): ProbeResult | undefined;
}

/**
 * The view used when no prober is wired: every probe counts as passed, so sidecars with startup
 * probes do not wait forever and nothing is killed for liveness.
 */
export const probesAlwaysSucceed: ProbeResultsView = {
  liveness: () => "Success",
  startup: () => "Success",
};
