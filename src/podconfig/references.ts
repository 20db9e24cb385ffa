/**
 * A static pod has no apiserver behind it, so it may not reference API objects: the kubelet
 * rejects it (podutil.HasAPIObjectReference, unconditional since the PreventStaticPodAPIReferences
 * gate was removed). Checked in the kubelet's order: service accounts, secrets anywhere, config
 * maps anywhere, resource claims, then volume types. Returns the first reference found.
 */
import type { Container, Pod } from "../api/index.ts";
import { volumeSourceKeys } from "./defaults.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";

/** Volume types that need nothing from the API; every other type but `projected` is in apiVolumes. */
const nodeLocalVolumes = new Set([
  "awsElasticBlockStore", "azureDisk", "cephfs", "cinder", "downwardAPI", "emptyDir", "fc", "flexVolume",
  "flocker", "gcePersistentDisk", "gitRepo", "hostPath", "image", "iscsi", "nfs", "photonPersistentDisk",
  "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume",
]);

const apiVolumes: Record<string, string> = {
  configMap: "configmaps (via configmap volumes)",
  secret: "secrets (via secret volumes)",
  csi: "csidrivers (via CSI volumes)",
  glusterfs: "endpoints (via glusterFS volumes)",
  persistentVolumeClaim: "persistentvolumeclaims",
  ephemeral: "persistentvolumeclaims (via ephemeral volumes)",
  azureFile: "secrets (via azureFile volumes)",
};

const projectedSources: Record<string, string> = {
  configMap: "configmaps (via projected volumes)",
  secret: "secrets (via projected volumes)",
  serviceAccountToken: "serviceaccounts (via projected volumes)",
  clusterTrustBundle: "clustertrustbundles",
  podCertificate: "podcertificates",
};

/** Volume sources that name a secret through a `secretRef` (or CSI's nodePublishSecretRef). */
const secretRefVolumes = ["cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos"];

interface Ref {
  field: string;
  resource: string;
}

function containerLists(pod: Pod): [string, Container[]][] {
  return [
    ["spec.initContainers", pod.spec.initContainers ?? []],
    ["spec.containers", pod.spec.containers ?? []],
    ["spec.ephemeralContainers", pod.spec.ephemeralContainers ?? []],
  ];
}

/** The first place a container's env or envFrom names an object of the given kind. */
function envRef(pod: Pod, kind: "secret" | "configMap"): string | undefined {
  for (const [base, list] of containerLists(pod)) {
    for (const [i, c] of list.entries()) {
      for (const [j, e] of (c.envFrom ?? []).entries()) {
        if (e[`${kind}Ref`]) return `${base}[${i}].envFrom[${j}].${kind}Ref`;
      }
      for (const [j, e] of (c.env ?? []).entries()) {
        if (e.valueFrom?.[`${kind}KeyRef`]) return `${base}[${i}].env[${j}].valueFrom.${kind}KeyRef`;
      }
    }
  }
  return undefined;
}

function secretRef(pod: Pod): string | undefined {
  if ((pod.spec.imagePullSecrets ?? []).length > 0) return "spec.imagePullSecrets";
  const inEnv = envRef(pod, "secret");
  if (inEnv) return inEnv;
  for (const [i, v] of (pod.spec.volumes ?? []).entries()) {
    const path = `spec.volumes[${i}]`;
    if (v.secret) return `${path}.secret`;
    if (v.azureFile) return `${path}.azureFile`;
    const csi = v.csi as { nodePublishSecretRef?: unknown } | undefined;
    if (csi?.nodePublishSecretRef) return `${path}.csi.nodePublishSecretRef`;
    for (const key of secretRefVolumes) {
      const src = v[key] as { secretRef?: unknown } | undefined;
      if (src?.secretRef) return `${path}.${key}.secretRef`;
    }
    for (const [j, s] of (v.projected?.sources ?? []).entries()) {
      if (s.secret) return `${path}.projected.sources[${j}].secret`;
    }
  }
  return undefined;
}

function configMapRef(pod: Pod): string | undefined {
  const inEnv = envRef(pod, "configMap");
  if (inEnv) return inEnv;
  for (const [i, v] of (pod.spec.volumes ?? []).entries()) {
    if (v.configMap) return `spec.volumes[${i}].configMap`;
    for (const [j, s] of (v.projected?.sources ?? []).entries()) {
      if (s.configMap) return `spec.volumes[${i}].projected.sources[${j}].configMap`;
    }
  }
  return undefined;
}

function volumeRef(pod: Pod): Ref | FieldError | undefined {
  for (const [i, v] of (pod.spec.volumes ?? []).entries()) {
    const path = `spec.volumes[${i}]`;
    const key = volumeSourceKeys.find((k) => v[k] !== undefined);
    if (key === undefined || nodeLocalVolumes.has(key)) continue;
    if (key in apiVolumes) return { field: `${path}.${key}`, resource: apiVolumes[key] };
    for (const [j, s] of (v.projected?.sources ?? []).entries()) {
      const kind = Object.keys(s).find((k) => s[k] !== undefined);
      if (kind === "downwardAPI") continue;
      const srcPath = `${path}.projected.sources[${j}]`;
      if (kind && kind in projectedSources) return { field: `${srcPath}.${kind}`, resource: projectedSources[kind] };
      return fe.forbidden(srcPath, `unknown source for projected volume ${JSON.stringify(v.name)}`);
    }
  }
  return undefined;
}

function firstReference(pod: Pod): Ref | FieldError | undefined {
  if (pod.spec.serviceAccountName) return { field: "spec.serviceAccountName", resource: "serviceaccounts" };
  if (pod.spec.serviceAccount) return { field: "spec.serviceAccount", resource: "serviceaccounts" };
  const secret = secretRef(pod);
  if (secret) return { field: secret, resource: "secrets" };
  const configMap = configMapRef(pod);
  if (configMap) return { field: configMap, resource: "configmaps" };
  if ((pod.spec.resourceClaims ?? []).length > 0) return { field: "spec.resourceClaims", resource: "resourceclaims" };
  return volumeRef(pod);
}

/** A Forbidden error at the first API object reference of the pod, if any. */
export function findAPIObjectReference(pod: Pod): FieldError | undefined {
  const found = firstReference(pod);
  if (!found || "code" in found) return found;
  return fe.forbidden(found.field, `static pods may not reference ${found.resource}`);
}
