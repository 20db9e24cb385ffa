// The runtime's view of pods (the kubelet's pkg/kubelet/container): the pod and container status
// types built from CRI objects, the conversions, the kubelet labels they are read from, and the
// policy helpers that the runtime manager, the PLEG, the status generator and the prober share.
export {
  emptyPodStatus,
  findContainerStatus,
  type ContainerState,
  type RuntimeContainerRef,
  type RuntimeContainerStatus,
  type RuntimePod,
  type RuntimePodStatus,
  type RuntimeSandboxStatus,
} from "./types.ts";
export { containerRef, nanosToMs, runningPodFromStatus, sandboxIPs, sandboxRef, toContainerStatus, toSandboxStatus } from "./convert.ts";
export {
  allContainerStatuses,
  containerSucceeded,
  hasRestartableInitContainer,
  isHostNetwork,
  isInitContainerFailed,
  podHasContainer,
  podSandboxChanged,
  resolveContainerPort,
  runtimePodRef,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from "./helpers.ts";
export { containerShouldRestart, restartOnFailure } from "./restart-rules.ts";
// Written once in api (src/api/pod-rules.ts), which eviction and admission read too; passed on
// here so the runtime, status and prober keep one door for the container view.
export { isRestartableInitContainer, podRestartPolicy } from "../api/index.ts";
export { containerChanged, hashContainer } from "./hash.ts";
export {
  containerInfoFromAnnotations,
  containerInfoFromLabels,
  DEFAULT_TERMINATION_MESSAGE_PATH,
  newContainerAnnotations,
  newContainerLabels,
  newPodAnnotations,
  newPodLabels,
  type ContainerKind,
} from "./labels.ts";
export { containerResourceValue, DownwardAPIError, podFieldValue, type NodeFacts } from "./downward.ts";
export { pluginVolumeType, podVolumeDir, volumePluginName } from "./volume-paths.ts";
