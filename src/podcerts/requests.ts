/**
 * The node's PodCertificateRequests (createPodCertificateRequest): a key pair made here, and a
 * request in the pod's namespace owned by the pod, naming the pod, its service account and this
 * node with their UIDs, the signer, the lifetime asked for, the pod author's annotations for the
 * signer and the stub PKCS#10 request that proves possession of the key. The UIDs are read as
 * the kubelet reads them: the service account by GET, the Node from the apiserver. The Node
 * authorizer and NodeRestriction let a node do exactly this for pods bound to it.
 */
import type { Pod, PodCertificateProjection } from "../api/index.ts";
import { resourcePath, type ApiClient } from "../apiclient/index.ts";
import type { GenerateKeyAndProof } from "./keys.ts";
import type { PodCertificateRequest } from "./states.ts";

export const PCR_API_VERSION = "certificates.k8s.io/v1";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface CreatedRequest {
  /** PEM, for the pod's volume only. */
  privateKey: Uint8Array;
  name: string;
  /** metadata.creationTimestamp, ms since the epoch. */
  createdAt: number;
}

export interface PodIdentity {
  serviceAccountUID: string;
  nodeUID: string;
}

/** The service account's and the Node's UIDs, as handleProjection reads them before each request. */
export async function podIdentity(client: Pick<ApiClient, "get">, pod: Pod, nodeName: string, signal?: AbortSignal): Promise<PodIdentity> {
  const namespace = pod.metadata.namespace ?? "";
  let serviceAccountUID: string;
  try {
    const path = resourcePath({ apiVersion: "v1", resource: "serviceaccounts", namespace, name: pod.spec.serviceAccountName ?? "" });
    const sa = await client.get<{ metadata?: { uid?: string } }>(path, { signal });
    serviceAccountUID = sa.metadata?.uid ?? "";
  } catch (err) {
    throw new Error(`while fetching service account: ${message(err)}`);
  }
  try {
    const node = await client.get<{ metadata?: { uid?: string } }>(resourcePath({ apiVersion: "v1", resource: "nodes", name: nodeName }), { signal });
    return { serviceAccountUID, nodeUID: node.metadata?.uid ?? "" };
  } catch (err) {
    throw new Error(`while getting node object from local cache: ${message(err)}`);
  }
}

/** One projection's request for a pod bound to nodeName; errors worded as the kubelet's. */
export async function createPodCertificateRequest(
  client: Pick<ApiClient, "create">,
  generate: GenerateKeyAndProof,
  pod: Pod,
  nodeName: string,
  identity: PodIdentity,
  source: PodCertificateProjection,
  signal?: AbortSignal,
): Promise<CreatedRequest> {
  const namespace = pod.metadata.namespace ?? "";
  let key: Awaited<ReturnType<GenerateKeyAndProof>>;
  try {
    key = await generate(source.keyType);
  } catch (err) {
    throw new Error(`while generating keypair: ${message(err)}`);
  }
  const body: PodCertificateRequest & { metadata: Record<string, unknown>; spec: Record<string, unknown> } = {
    apiVersion: PCR_API_VERSION,
    kind: "PodCertificateRequest",
    metadata: {
      namespace,
      generateName: "req-",
      ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" }],
    },
    spec: {
      signerName: source.signerName,
      podName: pod.metadata.name ?? "",
      podUID: pod.metadata.uid ?? "",
      serviceAccountName: pod.spec.serviceAccountName ?? "",
      serviceAccountUID: identity.serviceAccountUID,
      nodeName,
      nodeUID: identity.nodeUID,
      ...(source.maxExpirationSeconds !== undefined ? { maxExpirationSeconds: source.maxExpirationSeconds } : {}),
      stubPKCS10Request: Buffer.from(key.stubPKCS10Request).toString("base64"),
      ...(Object.keys(source.userAnnotations ?? {}).length > 0 ? { unverifiedUserAnnotations: source.userAnnotations } : {}),
    },
  };
  let created: PodCertificateRequest;
  try {
    created = await client.create<PodCertificateRequest>(resourcePath({ apiVersion: PCR_API_VERSION, resource: "podcertificaterequests", namespace }), body, { signal });
  } catch (err) {
    throw new Error(`while creating on API: ${message(err)}`);
  }
  return { privateKey: key.keyPEM, name: created.metadata?.name ?? "", createdAt: Date.parse(created.metadata?.creationTimestamp ?? "") };
}
