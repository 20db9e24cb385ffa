// The runtime manager (the kubelet's kuberuntime): views over CRI, the pure plan, and SyncPod.
export { createRuntimeManager, type RuntimeManager } from "./manager.ts";
export { runtimeViews } from "./views.ts";
export { Reason, SyncError } from "./errors.ts";
export type { PodSyncResult } from "./result.ts";
export type { PodCgroupResizer } from "./resize.ts";
export { ObjectNotFoundError, type EnvObjects } from "./env.ts";
export { runtimeStatus as readRuntimeStatus, type RuntimeHandlerStatus } from "./runtime-status.ts";
