/**
 * kubelet_running_pods and kubelet_running_containers{container_state}. A relist sees everything
 * and sets them outright; an evented update sees one pod and moves them by the difference
 * between the cached status and the new one (as evented.go does).
 */
import type { ContainerState, RuntimePodStatus, RuntimePod } from "../container/index.ts";
import type { PlegMetrics } from "./deps.ts";

const STATES: readonly ContainerState[] = ["created", "running", "exited", "unknown"];

type RunningMetrics = Pick<PlegMetrics, "runningPods" | "runningContainers">;

export function setRunningMetricsFromRelist(metrics: RunningMetrics, pods: RuntimePod[]): void {
  const counts = new Map<ContainerState, number>(STATES.map((s) => [s, 0]));
  let running = 0;
  for (const pod of pods) {
    for (const c of pod.containers) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
    if (pod.sandboxes.some((s) => s.state === "running")) running++;
  }
  metrics.runningPods.set(running);
  for (const [state, n] of counts) metrics.runningContainers.set({ container_state: state }, n);
}

function podRunning(status: RuntimePodStatus | undefined): boolean {
  return status?.sandboxStatuses[0]?.state === "ready";
}

function containerCounts(status: RuntimePodStatus | undefined): Map<ContainerState, number> {
  const counts = new Map<ContainerState, number>();
  for (const c of status?.containerStatuses ?? []) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  return counts;
}

/** Moves the gauges from what `before` contributed to what `after` contributes (either may be absent). */
export function applyRunningMetricsDelta(metrics: RunningMetrics, before: RuntimePodStatus | undefined, after: RuntimePodStatus | undefined): void {
  const podDelta = Number(podRunning(after)) - Number(podRunning(before));
  if (podDelta !== 0) metrics.runningPods.inc(podDelta);
  const old = containerCounts(before);
  const now = containerCounts(after);
  for (const state of STATES) {
    const delta = (now.get(state) ?? 0) - (old.get(state) ?? 0);
    if (delta !== 0) metrics.runningContainers.inc({ container_state: state }, delta);
  }
}
