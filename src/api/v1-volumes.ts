/**
 * The core/v1 types behind a pod's API-backed volumes and environment: ConfigMap, Secret,
 * Service (for service-link env vars), and the configMap, secret, downwardAPI and projected volume
 * sources (with the clusterTrustBundle and podCertificate projections), JSON field names as on the
 * wire.
 */
import type { LabelSelector } from "kubernetes-types/meta/v1";
import type { KeyToPath, ObjectMeta } from "./v1.ts";

export type { LabelSelector } from "kubernetes-types/meta/v1";

export interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
  /** base64, as on the wire. */
  binaryData?: Record<string, string>;
}

export interface Secret {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  /** base64, as on the wire. */
  data?: Record<string, string>;
  type?: string;
}

export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
}

export interface Service {
  metadata: ObjectMeta;
  spec?: { clusterIP?: string; ports?: ServicePort[] };
}

export interface ConfigMapVolumeSource {
  name?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface SecretVolumeSource {
  secretName?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: { resource: string; containerName?: string; divisor?: string };
  mode?: number;
}

export interface DownwardAPIVolumeSource {
  items?: DownwardAPIVolumeFile[];
  defaultMode?: number;
}

export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

/** The trust anchors of one ClusterTrustBundle (by name) or of those of a signer a label selector picks. */
export interface ClusterTrustBundleProjection {
  name?: string;
  signerName?: string;
  /** With signerName: absent matches nothing, empty matches everything. */
  labelSelector?: LabelSelector;
  optional?: boolean;
  path: string;
}

/** A key pair made on the node and the certificate chain a signer issued for it (KEP-4317). */
export interface PodCertificateProjection {
  signerName: string;
  /** RSA3072, RSA4096, ECDSAP256, ECDSAP384, ECDSAP521 or ED25519 (the apiserver refuses others). */
  keyType: string;
  maxExpirationSeconds?: number;
  credentialBundlePath?: string;
  keyPath?: string;
  certificateChainPath?: string;
  userAnnotations?: Record<string, string>;
}

export interface VolumeProjection {
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: ServiceAccountTokenProjection;
  clusterTrustBundle?: ClusterTrustBundleProjection;
  podCertificate?: PodCertificateProjection;
  /** A source a newer API adds, kept as decoded (a static pod naming one is refused by validation). */
  [other: string]: unknown;
}

export interface ProjectedVolumeSource {
  sources?: VolumeProjection[];
  defaultMode?: number;
}

export interface HostAlias {
  ip: string;
  hostnames?: string[];
}
