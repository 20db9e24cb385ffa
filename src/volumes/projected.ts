/**
 * projected collectData (pkg/volume/projected): every source's files in one payload, the
 * failures joined. configMap, secret and downwardAPI files as their own volumes write them; a
 * serviceAccountToken, a clusterTrustBundle's anchors and a podCertificate's key and chain with
 * the default mode, or 0600 owned by the pods' shared runAsUser when there is an owner or an
 * fsGroup to give them to (fsGroup then makes them 0640). A podCertificate writes its credential
 * bundle (the PRIVATE KEY block, then the chain), its key and its chain at whichever of the
 * three paths are set.
 */
import { podUID, type ConfigMap, type LabelSelector, type Pod, type Secret, type Volume } from "../api/index.ts";
import type { NodeFacts } from "../container/index.ts";
import type { Payload } from "./atomic-writer.ts";
import { fsUserFrom } from "./ownership.ts";
import { configMapPayload, DEFAULT_MODE, downwardAPIPayload, secretPayload } from "./payload.ts";
import type { TokenManager } from "./tokens.ts";

/** The node's ClusterTrustBundles, normalised as the kubelet's clustertrustbundle.Manager gives them. */
export interface TrustAnchorSource {
  trustAnchorsByName(name: string, allowMissing: boolean, signal?: AbortSignal): Promise<Uint8Array>;
  trustAnchorsBySigner(signerName: string, labelSelector: LabelSelector | undefined, allowMissing: boolean, signal?: AbortSignal): Promise<Uint8Array>;
}

/** The node's pod certificates (the kubelet's podcertificate.Manager). */
export interface PodCredentialSource {
  /** The key (PEM) and the issued chain of one projection; throws while there are none. */
  credentialBundle(pod: Pod, volumeName: string, sourceIndex: number, signal?: AbortSignal): Promise<{ privateKey: Uint8Array; certificateChain: Uint8Array }>;
  /** Drops what the node keeps for the pod (its keys among it). */
  forgetPod(uid: string): void;
}

/** What the projected sources read; each getter fails with the kubelet's message. */
export interface ProjectedSources {
  configMap(namespace: string, name: string, optional: boolean, signal?: AbortSignal): Promise<ConfigMap>;
  secret(namespace: string, name: string, optional: boolean, signal?: AbortSignal): Promise<Secret>;
  tokens(namespace: string, serviceAccount: string): TokenManager;
  trustBundles(): TrustAnchorSource;
  podCertificates(): PodCredentialSource;
  node: Omit<NodeFacts, "podIPs">;
}

const enc = new TextEncoder();

export async function projectedPayload(from: ProjectedSources, pod: Pod, volume: Volume, signal?: AbortSignal): Promise<Payload> {
  const source = volume.projected!;
  const defaultMode = source.defaultMode ?? DEFAULT_MODE;
  const namespace = pod.metadata.namespace ?? "";
  const fsUser = fsUserFrom(pod);
  // With an owner to give them to, tokens, anchors and keys are 0600 (0640 once fsGroup is applied).
  const ownedMode = fsUser !== undefined || pod.spec.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const [sourceIndex, s] of (source.sources ?? []).entries()) {
    try {
      let part: Payload | undefined;
      if (s.configMap) {
        const optional = s.configMap.optional ?? false;
        part = configMapPayload(s.configMap.items, await from.configMap(namespace, s.configMap.name ?? "", optional, signal), defaultMode, optional);
      } else if (s.secret) {
        const optional = s.secret.optional ?? false;
        part = secretPayload(s.secret.items, await from.secret(namespace, s.secret.name ?? "", optional, signal), defaultMode, optional);
      } else if (s.downwardAPI) {
        part = downwardAPIPayload(s.downwardAPI.items, pod, defaultMode, { ...from.node, podIPs: [] });
      } else if (s.serviceAccountToken) {
        const tp = s.serviceAccountToken;
        const serviceAccount = pod.spec.serviceAccountName || "default";
        const issued = await from.tokens(namespace, serviceAccount).getServiceAccountToken(
          namespace,
          serviceAccount,
          {
            audiences: tp.audience ? [tp.audience] : [],
            expirationSeconds: tp.expirationSeconds ?? 3600,
            boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata.name ?? "", uid: podUID(pod) },
          },
          signal,
        );
        part = new Map([[tp.path, { data: enc.encode(issued.token), mode: ownedMode, fsUser }]]);
      } else if (s.clusterTrustBundle) {
        const ctb = s.clusterTrustBundle;
        const allowMissing = ctb.optional ?? false;
        let anchors: Uint8Array;
        if (ctb.name !== undefined) anchors = await from.trustBundles().trustAnchorsByName(ctb.name, allowMissing, signal);
        else if (ctb.signerName !== undefined) anchors = await from.trustBundles().trustAnchorsBySigner(ctb.signerName, ctb.labelSelector, allowMissing, signal);
        else throw new Error("ClusterTrustBundle projection requires either name or signerName to be set");
        part = new Map([[ctb.path, { data: anchors, mode: ownedMode, fsUser }]]);
      } else if (s.podCertificate) {
        const pc = s.podCertificate;
        const { privateKey, certificateChain } = await from.podCertificates().credentialBundle(pod, volume.name, sourceIndex, signal);
        part = new Map();
        if (pc.credentialBundlePath) part.set(pc.credentialBundlePath, { data: Buffer.concat([privateKey, certificateChain]), mode: ownedMode, fsUser });
        if (pc.keyPath) part.set(pc.keyPath, { data: privateKey, mode: ownedMode, fsUser });
        if (pc.certificateChainPath) part.set(pc.certificateChainPath, { data: certificateChain, mode: ownedMode, fsUser });
      } else {
        continue;
      }
      for (const [k, v] of part) payload.set(k, v);
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
  return payload;
}
