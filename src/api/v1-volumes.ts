/**
 * The core/v1 types behind a pod's API-backed volumes and environment: ConfigMap, Secret,
 * Service (for service-link env vars), and the configMap, secret, downwardAPI and projected volume
 * sources, JSON field names as on the wire.
 */
import type { KeyToPath, ObjectMeta } from "./v1.ts";

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

export interface VolumeProjection {
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: ServiceAccountTokenProjection;
  /** clusterTrustBundle, podCertificate: kept as decoded, not projected by bunlet. */
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
