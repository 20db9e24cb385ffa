// Pod status: phase, conditions and container statuses (kubelet_pods.go, status/generate.go) and
// the status manager that holds what bunlet reports for every pod (status/status_manager.go).
export { getPhase, isPodPhaseTerminal, hasAnyRegularContainerStarted } from "./phase.ts";
export { generateAPIPodStatus, withTransitionTime, type GenerateOptions, type ProbeResult } from "./generate.ts";
export {
  convertToAPIContainerStatuses,
  ContainerCreating,
  PodInitializing,
  ContainerStatusUnknown,
  type WaitingReason,
} from "./container-statuses.ts";
export {
  generateContainersReadyCondition,
  generatePodReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyToStartContainersCondition,
  kubeletOwnedConditions,
  UnknownContainerStatuses,
  PodCompleted,
  PodFailed,
  ContainersNotReady,
  ContainersNotInitialized,
  ReadinessGatesNotReady,
  PodScheduled,
  PodReady,
  PodInitialized,
  ContainersReady,
  PodReadyToStartContainers,
  DisruptionTarget,
} from "./conditions.ts";
export { computePodQOS, parseQuantity, type QOSClass } from "./qos.ts";
export { createStatusManager, type StatusManager } from "./manager.ts";
export { createStatusGenerator, type StatusGenerator, type StatusGeneratorDeps } from "./generator.ts";
export { rfc3339 } from "./time.ts";
