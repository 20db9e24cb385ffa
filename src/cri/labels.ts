/**
 * The label and annotation keys the kubelet writes on CRI sandboxes and containers
 * (pkg/kubelet/types/labels.go, pkg/kubelet/kuberuntime/labels.go). crictl and other tools read
 * them, and bunlet reads them back to adopt what a previous run left behind.
 */
export const KubernetesPodNameLabel = "io.kubernetes.pod.name";
export const KubernetesPodNamespaceLabel = "io.kubernetes.pod.namespace";
export const KubernetesPodUIDLabel = "io.kubernetes.pod.uid";
export const KubernetesContainerNameLabel = "io.kubernetes.container.name";
export const KubernetesContainerTypeLabel = "io.kubernetes.container.type";

export const PodDeletionGracePeriodLabel = "io.kubernetes.pod.deletionGracePeriod";
export const PodTerminationGracePeriodLabel = "io.kubernetes.pod.terminationGracePeriod";

export const ContainerHashLabel = "io.kubernetes.container.hash";
export const ContainerRestartCountLabel = "io.kubernetes.container.restartCount";
export const ContainerTerminationMessagePathLabel = "io.kubernetes.container.terminationMessagePath";
export const ContainerTerminationMessagePolicyLabel = "io.kubernetes.container.terminationMessagePolicy";
export const ContainerPreStopHandlerLabel = "io.kubernetes.container.preStopHandler";
export const ContainerPortsLabel = "io.kubernetes.container.ports";

/** Values of io.kubernetes.container.type. */
export const ContainerTypeInit = "init";
export const ContainerTypeRegular = "container";
export const ContainerTypeEphemeral = "ephemeral";

/** The container name the kubelet gives the sandbox in its own bookkeeping ("POD"). */
export const PodInfraContainerName = "POD";
