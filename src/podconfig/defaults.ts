/**
 * The defaults the apiserver's v1 scheme applies when a Pod is decoded (pkg/apis/core/v1
 * defaults.go and the generated per-field defaults). The kubelet's decoder applies the same
 * ones to static pods before it hashes them, so a manifest means the same thing here as it would
 * through the API. Only fields bunlet models are defaulted; the pod is changed in place.
 */
import {
  defaultImagePullPolicy,
  DefaultRestartPolicy,
  DefaultTerminationGracePeriodSeconds,
  type Container,
  type HTTPGetAction,
  type LifecycleHandler,
  type Pod,
  type Probe,
  type Volume,
} from "../api/index.ts";

const DefaultSchedulerName = "default-scheduler";
const TerminationMessagePathDefault = "/dev/termination-log";
/** 0644, the default mode of files in secret, configMap, downwardAPI and projected volumes. */
const DefaultVolumeFileMode = 0o644;

function defaultHTTPGet(action: HTTPGetAction | undefined): void {
  if (!action) return;
  if (!action.path) action.path = "/";
  if (!action.scheme) action.scheme = "HTTP";
}

function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  defaultHTTPGet(probe.httpGet);
}

function defaultHandler(handler: LifecycleHandler | undefined): void {
  defaultHTTPGet(handler?.httpGet);
}

function defaultContainer(c: Container, hostNetwork: boolean): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultImagePullPolicy(c.image ?? "");
  if (!c.terminationMessagePath) c.terminationMessagePath = TerminationMessagePathDefault;
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = "File";
  for (const port of c.ports ?? []) {
    if (!port.protocol) port.protocol = "TCP";
    if (hostNetwork && !port.hostPort) port.hostPort = port.containerPort;
  }
  const limits = c.resources?.limits;
  if (c.resources && limits) {
    const requests = (c.resources.requests ??= {});
    for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
  }
  for (const env of c.env ?? []) {
    const fieldRef = env.valueFrom?.fieldRef;
    if (fieldRef && !fieldRef.apiVersion) fieldRef.apiVersion = "v1";
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHandler(c.lifecycle?.postStart);
  defaultHandler(c.lifecycle?.preStop);
}

/** Names of the volume source fields of a v1 Volume (exactly one must be set). */
export const volumeSourceKeys = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
  "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
  "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
  "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
  "image",
] as const;

function defaultVolume(v: Volume): void {
  const set = volumeSourceKeys.filter((k) => v[k] !== undefined);
  if (set.length === 0) v.emptyDir = {};
  if (v.hostPath && v.hostPath.type === undefined) v.hostPath.type = "";
  for (const key of ["secret", "configMap", "downwardAPI", "projected"] as const) {
    const src = v[key] as { defaultMode?: number } | undefined;
    if (src && src.defaultMode === undefined) src.defaultMode = DefaultVolumeFileMode;
  }
  for (const source of v.projected?.sources ?? []) {
    const token = source.serviceAccountToken as { expirationSeconds?: number } | undefined;
    if (token && token.expirationSeconds === undefined) token.expirationSeconds = 3600;
  }
}

/** Applies the API server's v1 Pod defaults in place. */
export function applyApiDefaults(pod: Pod): void {
  const spec = pod.spec;
  const hostNetwork = spec.hostNetwork === true;
  if (!spec.dnsPolicy) spec.dnsPolicy = "ClusterFirst";
  if (!spec.restartPolicy) spec.restartPolicy = DefaultRestartPolicy;
  if (!spec.securityContext) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined) {
    spec.terminationGracePeriodSeconds = DefaultTerminationGracePeriodSeconds;
  }
  if (!spec.schedulerName) spec.schedulerName = DefaultSchedulerName;
  if (spec.enableServiceLinks === undefined) spec.enableServiceLinks = true;
  for (const c of spec.initContainers ?? []) defaultContainer(c, hostNetwork);
  for (const c of spec.containers ?? []) defaultContainer(c, hostNetwork);
  // Ephemeral containers get the container defaults but never host ports.
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c, false);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}
