/**
 * The kubelet's applyDefaults for pods from the file and HTTP sources (pkg/kubelet/config
 * common.go): a UID derived from the content and where it came from, the node-suffixed name, the
 * default namespace, the node binding, the config hash, the NoExecute toleration for file pods,
 * and the Pending phase.
 */
import { createHash } from "node:crypto";
import { ConfigHashAnnotationKey, type Pod } from "../api/index.ts";
import { canonicalJSON } from "../lib/index.ts";

export interface StaticPodOrigin {
  /** File path or URL the pod was read from. */
  source: string;
  nodeName: string;
  /** True for the file source (host+path in the UID, NoExecute toleration), false for a URL. */
  isFile: boolean;
}

/**
 * A 32-hex-character UID that depends only on the (API-defaulted) pod content, then the node and
 * file path for a file, or the URL. Upstream hashes Go structs with FNV-128a, which cannot be
 * reproduced byte for byte outside Go; what matters, and what this keeps, is that the same
 * manifest at the same place on the same node always gets the same UID, and any change to one
 * of them gives a new one.
 */
function staticPodUID(pod: Pod, origin: StaticPodOrigin): string {
  const hash = createHash("sha256");
  hash.update(canonicalJSON(pod));
  if (origin.isFile) {
    hash.update(`host:${origin.nodeName}`);
    hash.update(`file:${origin.source}`);
  } else {
    hash.update(`url:${origin.source}`);
  }
  return hash.digest("hex").slice(0, 32);
}

/** "<name>-<lowercased node name>", unique among nodes. */
function staticPodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

function hasNoExecuteExistsToleration(pod: Pod): boolean {
  return (pod.spec.tolerations ?? []).some(
    (t) => (t.key ?? "") === "" && t.operator === "Exists" && t.effect === "NoExecute",
  );
}

/** Applies the kubelet's static-pod defaults in place (after the API defaults). */
export function applyStaticPodDefaults(pod: Pod, origin: StaticPodOrigin): void {
  const meta = pod.metadata;
  if (!meta.uid) meta.uid = staticPodUID(pod, origin);
  meta.name = staticPodName(meta.name ?? "", origin.nodeName);
  if (!meta.namespace) meta.namespace = "default";
  pod.spec.nodeName = origin.nodeName;
  meta.annotations = { ...meta.annotations, [ConfigHashAnnotationKey]: meta.uid };
  // File pods tolerate every NoExecute taint, so node problems never evict them
  // (helper.AddOrUpdateTolerationInPod: an identical toleration is not added twice).
  if (origin.isFile && !hasNoExecuteExistsToleration(pod)) {
    pod.spec.tolerations = [...(pod.spec.tolerations ?? []), { operator: "Exists", effect: "NoExecute" }];
  }
  pod.status = { ...pod.status, phase: "Pending" };
}
