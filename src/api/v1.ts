/**
 * The subset of the Kubernetes core/v1 API that bunlet reads and writes, as plain JSON-shaped
 * types (field names as on the wire). Unknown fields in manifests are kept (index signatures are
 * avoided so typos in our own code still fail to compile; decoders copy objects whole).
 */
import { kObj, type ObjectRef } from "./object-ref.ts";
import type { Affinity } from "kubernetes-types/core/v1";
// The node-side types pod admission matches a pod against, in the same model as the pod.
export type { NodeSelectorRequirement, NodeSelectorTerm, Taint } from "kubernetes-types/core/v1";
import type { ConfigMapVolumeSource, DownwardAPIVolumeSource, HostAlias, ProjectedVolumeSource, SecretVolumeSource } from "./v1-volumes.ts";
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: unknown[];
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface Volume {
  name: string;
  hostPath?: { path: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: string };
  secret?: SecretVolumeSource;
  configMap?: ConfigMapVolumeSource;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  projected?: ProjectedVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  ephemeral?: Record<string, unknown>;
  /** An OCI image's contents, mounted read-only by the runtime (ImageVolumeSource). */
  image?: { reference?: string; pullPolicy?: "Always" | "IfNotPresent" | "Never" };
  [other: string]: unknown;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string; apiVersion?: string };
    resourceFieldRef?: { resource: string; containerName?: string; divisor?: string };
    configMapKeyRef?: { name?: string; key: string; optional?: boolean };
    secretKeyRef?: { name?: string; key: string; optional?: boolean };
  };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface ExecAction {
  command?: string[];
}

export interface HTTPGetAction {
  path?: string;
  port: number | string;
  host?: string;
  scheme?: "HTTP" | "HTTPS";
  httpHeaders?: { name: string; value: string }[];
}

export interface TCPSocketAction {
  port: number | string;
  host?: string;
}

export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: { seconds: number };
}

export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
}

export interface Probe {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface ResourceRequirements {
  limits?: Record<string, string | number>;
  requests?: Record<string, string | number>;
}

export interface ContainerResizePolicy {
  resourceName: string;
  restartPolicy: "NotRequired" | "RestartContainer";
}

export interface SecurityContext {
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string; localhostProfile?: string };
  procMount?: string;
}

export interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  supplementalGroups?: number[];
  fsGroup?: number;
  fsGroupChangePolicy?: "OnRootMismatch" | "Always";
  sysctls?: { name: string; value: string }[];
  seccompProfile?: { type: string; localhostProfile?: string };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  /** Expanded from the container's env ($(VAR)), then used as subPath; exclusive with subPath. */
  subPathExpr?: string;
  mountPropagation?: string;
}

export type RestartPolicy = "Always" | "OnFailure" | "Never";
export type PullPolicy = "Always" | "IfNotPresent" | "Never";

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: ResourceRequirements;
  /** How a change of each resource is applied in place (resize): NotRequired (default) or RestartContainer. */
  resizePolicy?: ContainerResizePolicy[];
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  terminationMessagePath?: string;
  terminationMessagePolicy?: "File" | "FallbackToLogsOnError";
  imagePullPolicy?: PullPolicy;
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  /**
   * On an init container "Always" makes it a sidecar (restartable init container). Otherwise the
   * container's own restart policy (ContainerRestartRules), over the pod's.
   */
  restartPolicy?: RestartPolicy;
  /** Evaluated in order on an exit before restartPolicy (ContainerRestartRules); needs restartPolicy. */
  restartPolicyRules?: ContainerRestartRule[];
}

/** A container restart rule: the action taken when the exit code matches. */
export interface ContainerRestartRule {
  /** "Restart"; "RestartAllContainers" needs the RestartAllContainersOnContainerExits gate (off). */
  action: string;
  exitCodes?: { operator: "In" | "NotIn"; values?: number[] };
}

export interface Toleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodDNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: { name: string; value?: string }[];
}

export interface PodSpec {
  volumes?: Volume[];
  initContainers?: Container[];
  containers: Container[];
  ephemeralContainers?: Container[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: "ClusterFirst" | "ClusterFirstWithHostNet" | "Default" | "None";
  dnsConfig?: PodDNSConfig;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  /** false: the pod gets its own user namespace (the kubelet's hostUsers; unset = true). */
  hostUsers?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: { name: string }[];
  hostname?: string;
  subdomain?: string;
  schedulerName?: string;
  tolerations?: Toleration[];
  priority?: number;
  priorityClassName?: string;
  enableServiceLinks?: boolean;
  hostAliases?: HostAlias[];
  setHostnameAsFQDN?: boolean;
  /** The pod's hostname as given (a DNS subdomain), with no domain: neither the pod name nor the subdomain shows. */
  hostnameOverride?: string;
  preemptionPolicy?: string;
  runtimeClassName?: string;
  resourceClaims?: unknown[];
  /** Scheduling constraints; the kubelet's admission checks the required node affinity. */
  affinity?: Affinity;
  /** The OS the pod needs; admission rejects another one (PodOSNotSupported). */
  os?: { name: string };
  /** RuntimeClass overhead, added to the pod's requests. */
  overhead?: Record<string, string>;
  /** Pod-level requests and limits (PodLevelResources): they replace the containers' sums for cpu, memory and hugepages. */
  resources?: ResourceRequirements;
  readinessGates?: { conditionType: string }[];
}

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}
export interface ContainerStateRunning {
  startedAt?: string;
}
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  /** The requests the node allocated to the container (in-place resize). */
  allocatedResources?: Record<string, string>;
  /** The resources the running container was given (its cgroup), else the allocated ones. */
  resources?: ResourceRequirements;
}

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export interface PodCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  /** metadata.generation of the pod the condition was computed for. */
  observedGeneration?: number;
}

export interface PodStatus {
  /** The pod's metadata.generation the kubelet last reported a status for (1.35+: always). */
  observedGeneration?: number;
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  /** Never ready and never started: the prober does not look at ephemeral containers. */
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: string;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

export interface PodList {
  apiVersion: "v1";
  kind: "PodList";
  metadata: { resourceVersion?: string };
  items: Pod[];
}

/** Well-known annotation keys the kubelet sets on pods it gets from config sources. */
export const ConfigSourceAnnotationKey = "kubernetes.io/config.source";
export const ConfigHashAnnotationKey = "kubernetes.io/config.hash";
export const ConfigMirrorAnnotationKey = "kubernetes.io/config.mirror";
export const ConfigFirstSeenAnnotationKey = "kubernetes.io/config.seen";

/** The API default of spec.terminationGracePeriodSeconds (pkg/apis/core/v1 defaults). */
export const DefaultTerminationGracePeriodSeconds = 30;

export const FileSource = "file";
export const HTTPSource = "http";
const ApiserverSource = "api";

/** A static pod is any pod whose config source is not the apiserver (types.IsStaticPod). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[ConfigSourceAnnotationKey];
  return source !== undefined && source !== ApiserverSource;
}

export function podFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

/** The pod as logs name it (klog.KObj): `pod="ns/name"` in text, `{"name","namespace"}` in JSON. */
export function podRef(pod: Pod): ObjectRef {
  return kObj(pod.metadata);
}

export function podUID(pod: Pod): string {
  return pod.metadata.uid ?? "";
}
