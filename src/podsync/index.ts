// Pod sync (the kubelet's kubelet.go SyncHandler and podSyncer, kubelet_pods.go HandlePodCleanups):
// the sync loop that routes config updates, PLEG events and ticks, the handlers that turn them into
// pod worker updates, the pod syncer the workers run, housekeeping, and the policy around them
// (admission, in-place resize, active deadline, pod directories, container GC, runtime readiness).
// The composition root (kubelet/) builds these; nothing else imports them.
export { admissionNode, admitHandlers, createPodAdmitter, sysctlAllowlist } from "./admission.ts";
export { actuatedStore, createAllocation, podCgroupResizer, withAllocatedResources, type Allocation } from "./allocation.ts";
export { createActiveDeadlineHandler, type ActiveDeadlineHandler } from "./active-deadline.ts";
export { createActivePods, killPodNow } from "./active-pods.ts";
export { ContainerGC } from "./container-gc.ts";
export { createPodHandlers, type PodHandlers } from "./handlers.ts";
export { plegHealthCheck, runtimeHealthCheck } from "./health.ts";
export { createHousekeeping } from "./housekeeping.ts";
export { observeRuntimeAtStart } from "./observe-runtime.ts";
export { podCgroupsOf, type PodCgroupManager } from "./pod-cgroups.ts";
export { createPodDirs } from "./pod-dirs.ts";
export { PodManager } from "./pod-manager.ts";
export { PodWorkersRef } from "./pod-workers-ref.ts";
export { createPodSyncer, type PodCgroups } from "./pod-syncer.ts";
export { RuntimeState } from "./runtime-state.ts";
export type { PodDirs } from "./types.ts";
export { SourcesReady } from "./sources-ready.ts";
export { runSyncLoop, SyncLoopMonitor } from "./sync-loop.ts";
