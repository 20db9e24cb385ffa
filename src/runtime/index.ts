// The runtime manager (the kubelet's kuberuntime): views over CRI, the pure plan, and SyncPod.
export { computePodActions } from "./actions.ts";
export {
  probesAlwaysSucceed,
  type ContainerToKill,
  type KillReason,
  type PodActions,
  type ProbeResult,
  type ProbeResultsView,
} from "./actions-types.ts";
export { createRuntimeManager, type RuntimeManager, type RuntimeManagerDeps } from "./manager.ts";
export { runtimeViews, type RuntimeViews } from "./views.ts";
export { Reason, SyncError } from "./errors.ts";
export type { PodSyncResult, SyncAction, SyncStep } from "./result.ts";
export type { DnsConfig } from "./dns.ts";
