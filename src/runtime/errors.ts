/**
 * The one error a pod sync reports (the kubelet's SyncResult error): `reason` is the kubelet's
 * (the container's waiting reason, e.g. CrashLoopBackOff, ErrImagePull, CreateContainerConfigError,
 * or NetworkNotReady), the message is the kubelet's, and `backoffUntil` (ms since the epoch, 0 =
 * none) says that nothing is wrong but backoff keeps the pod from progressing before then, so the
 * pod worker requeues the pod exactly at that time instead of after its generic 10 s error backoff
 * (the kubelet's BackoffError, PR #133066). Decisions read the reason, never the message.
 */
export class SyncError extends Error {
  override readonly name = "SyncError";

  constructor(
    readonly reason: string,
    message: string,
    readonly backoffUntil = 0,
  ) {
    super(message);
  }
}

/**
 * The kubelet's failure reasons (pkg/kubelet/container/sync_result.go, kuberuntime, images,
 * network); they become the container's waiting reason in the API status.
 */
export const Reason = {
  CrashLoopBackOff: "CrashLoopBackOff",
  RunContainerError: "RunContainerError",
  KillContainerError: "KillContainerError",
  CreatePodSandboxError: "CreatePodSandboxError",
  ConfigPodSandboxError: "ConfigPodSandboxError",
  KillPodSandboxError: "KillPodSandboxError",
  CreateContainerConfigError: "CreateContainerConfigError",
  CreateContainerError: "CreateContainerError",
  PostStartHookError: "PostStartHookError",
  ErrImagePull: "ErrImagePull",
  ImagePullBackOff: "ImagePullBackOff",
  ErrImageNeverPull: "ErrImageNeverPull",
  InvalidImageName: "InvalidImageName",
  ImageInspectError: "ImageInspectError",
  /** The runtime's pod network is not ready (the pod worker retries after about a second). */
  NetworkNotReady: "NetworkNotReady",
  /** Applying an allocated resize failed (kubecontainer.ErrResizePodInPlace). */
  ResizePodInPlaceError: "ResizePodInPlaceError",
} as const;

/** A spec the kubelet cannot turn into a container config. */
export function containerConfigError(message: string): SyncError {
  return new SyncError(Reason.CreateContainerConfigError, message);
}
