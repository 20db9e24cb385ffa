/**
 * bunlet's view of what the runtime holds (the kubelet's kubecontainer.PodStatus / Pod), built
 * from CRI objects and their kubelet labels. Times are milliseconds since the epoch (0 = unset).
 */
export type ContainerState = "created" | "running" | "exited" | "unknown";
export type SandboxState = "ready" | "notready";

export interface RuntimeContainerStatus {
  /** CRI container id (without the `containerd://` prefix). */
  id: string;
  name: string;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  /** The image as the pod spec named it (ContainerStatus.image.image). */
  image: string;
  /** The image reference the runtime resolved (digest), for status.imageID. */
  imageRef: string;
  /** io.kubernetes.container.hash, hex. */
  hash: string;
  /** io.kubernetes.container.restartCount. */
  restartCount: number;
  /** io.kubernetes.container.type: "init" | "container" | "ephemeral" | "" when unlabelled. */
  containerType: string;
  sandboxId: string;
  logPath: string;
  annotations: Record<string, string>;
  labels: Record<string, string>;
  /** The Linux resources the runtime reports the container runs with (CRI ContainerStatus.resources), if any. */
  resources?: { cpuShares: bigint; cpuQuota: bigint; cpuPeriod: bigint; memoryLimitInBytes: bigint };
}

export interface RuntimeSandboxStatus {
  id: string;
  state: SandboxState;
  createdAt: number;
  attempt: number;
  /** Primary IP first. */
  ips: string[];
  /** True when the sandbox uses the node's network namespace. */
  hostNetwork: boolean;
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  /** IPs of the newest ready sandbox (kept from older data when no sandbox is ready). */
  ips: string[];
  /** Newest first. */
  sandboxStatuses: RuntimeSandboxStatus[];
  /** Newest first (by createdAt). */
  containerStatuses: RuntimeContainerStatus[];
}

/** What ListPodSandbox + ListContainers say about one pod (the kubelet's kubecontainer.Pod). */
export interface RuntimePod {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: RuntimeContainerRef[];
  containers: RuntimeContainerRef[];
}

/** A container or sandbox as a list call reports it. */
export interface RuntimeContainerRef {
  id: string;
  name: string;
  state: ContainerState;
  createdAt: number;
  hash: string;
  sandboxId: string;
  image: string;
}

export function emptyPodStatus(uid: string, name = "", namespace = ""): RuntimePodStatus {
  return { uid, name, namespace, ips: [], sandboxStatuses: [], containerStatuses: [] };
}

/** The newest status of the named container. */
export function findContainerStatus(status: RuntimePodStatus, name: string): RuntimeContainerStatus | undefined {
  return status.containerStatuses.find((c) => c.name === name);
}
