/**
 * The kubelet's event reasons (pkg/kubelet/events/event.go), the words `kubectl describe` shows in
 * its Reason column. Several share a word on purpose: a failed create, start or pull is "Failed"
 * in the kubelet too.
 */
export const EventReason = {
  // Containers
  CreatedContainer: "Created",
  StartedContainer: "Started",
  FailedToCreateContainer: "Failed",
  FailedToStartContainer: "Failed",
  KillingContainer: "Killing",
  BackOffStartContainer: "BackOff",
  FailedPostStartHook: "FailedPostStartHook",
  FailedPreStopHook: "FailedPreStopHook",
  // Images
  PullingImage: "Pulling",
  PulledImage: "Pulled",
  FailedToPullImage: "Failed",
  FailedToInspectImage: "InspectFailed",
  ErrImageNeverPullPolicy: "ErrImageNeverPull",
  BackOffPullImage: "BackOff",
  // Recorded by the kubelet's SyncPod (kubelet.go), not in events.go.
  FailedToRetrieveImagePullSecret: "FailedToRetrieveImagePullSecret",
  // Pods and sandboxes
  FailedToKillPod: "FailedKillPod",
  FailedToCreatePodContainer: "FailedCreatePodContainer",
  NetworkNotReady: "NetworkNotReady",
  SandboxChanged: "SandboxChanged",
  FailedCreatePodSandBox: "FailedCreatePodSandBox",
  FailedStatusPodSandBox: "FailedPodSandBoxStatus",
  FailedMountVolume: "FailedMount",
  FailedSync: "FailedSync",
  // Probes
  ContainerUnhealthy: "Unhealthy",
  ContainerProbeWarning: "ProbeWarning",
} as const;
