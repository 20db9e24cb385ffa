/**
 * The pod counts housekeeping publishes after each pass (kubelet_pods.go HandlePodCleanups):
 * desired and active pods split by static (`static="true"` for pods not from the apiserver, ""
 * for API pods), and the pod workers' summary, kubelet_working_pods, over the kubelet's fixed set
 * of valid combinations, so a combination that empties reads 0 rather than keeping its last value.
 */
import type { KnownPodWorker } from "../podworkers/index.ts";

export interface WorkingPodCount {
  lifecycle: "sync" | "terminating" | "terminated";
  config: "desired" | "orphan" | "runtime_only";
  static: "true" | "" | "unknown";
  count: number;
}

const lifecycles = [
  ["SyncPod", "sync"],
  ["TerminatingPod", "terminating"],
  ["TerminatedPod", "terminated"],
] as const;

/** PodWorkerSync values the kubelet reports, with their config label. */
const combinations = [
  { orphan: false, hasConfig: true, static: true, config: "desired" },
  { orphan: false, hasConfig: true, static: false, config: "desired" },
  { orphan: true, hasConfig: true, static: true, config: "orphan" },
  { orphan: true, hasConfig: true, static: false, config: "orphan" },
  { orphan: true, hasConfig: false, static: false, config: "runtime_only" },
] as const;

export function workingPodCounts(working: Iterable<KnownPodWorker>): WorkingPodCount[] {
  const workers = [...working];
  const out: WorkingPodCount[] = [];
  for (const c of combinations) {
    for (const [state, lifecycle] of lifecycles) {
      const count = workers.filter((w) => w.state === state && w.orphan === c.orphan && w.hasConfig === c.hasConfig && (!c.hasConfig || w.static === c.static)).length;
      out.push({ lifecycle, config: c.config, static: !c.hasConfig ? "unknown" : c.static ? "true" : "", count });
    }
  }
  return out;
}
