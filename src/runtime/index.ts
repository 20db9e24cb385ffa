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
export { hashContainer } from "./hash.ts";
export { podSandboxChanged, shouldContainerBeRestarted } from "./policy.ts";
