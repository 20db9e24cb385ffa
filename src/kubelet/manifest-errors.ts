/**
 * Beyond the kubelet: a static pod whose manifest broke keeps running in its last good version.
 * /pods says so on the pod itself (an annotation with the error, which names the file and field),
 * and /healthz?verbose lists every broken manifest, so the problem is visible without reading logs.
 */
import type { PodList } from "../api/index.ts";

const ManifestErrorAnnotationKey = "bunlet.io/manifest-error";

export function annotateManifestErrors(list: PodList, keptPodErrors: Map<string, Error>): PodList {
  if (keptPodErrors.size === 0) return list;
  return {
    ...list,
    items: list.items.map((pod) => {
      const err = pod.metadata.uid ? keptPodErrors.get(pod.metadata.uid) : undefined;
      if (!err) return pod;
      const annotations = { ...pod.metadata.annotations, [ManifestErrorAnnotationKey]: err.message };
      return { ...pod, metadata: { ...pod.metadata, annotations } };
    }),
  };
}

export function manifestErrorDetail(errors: Map<string, Error>): { manifestErrors?: Record<string, string> } {
  if (errors.size === 0) return {};
  return { manifestErrors: Object.fromEntries([...errors].map(([source, err]) => [source, err.message])) };
}
