/**
 * Beyond the kubelet: a static pod whose manifest broke keeps running in its last good version.
 * /pods says so on the pod itself (an annotation with the error, which names the file and field),
 * and /healthz?verbose lists every rejected manifest, one line each, so the problem is visible
 * without reading logs.
 */
import type { PodList } from "../api/index.ts";

const ManifestErrorAnnotationKey = "bunlet.io/manifest-error";

/** What the detail lines need of a rejected manifest's error. */
interface RejectedManifest {
  source: string;
  message: string;
}

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

/**
 * /healthz?verbose lines: "rejected manifests: N", then one "rejected manifest <source>: <what is
 * wrong>" per manifest, saying when its last good pod keeps running.
 */
export function manifestErrorDetail(errors: Map<string, RejectedManifest>, keptPodErrors: Map<string, RejectedManifest>): Record<string, string> {
  if (errors.size === 0) return {};
  const kept = new Set(keptPodErrors.values());
  const out: Record<string, string> = { "rejected manifests": String(errors.size) };
  for (const [source, err] of errors) {
    const what = err.message.startsWith(`${err.source}: `) ? err.message.slice(err.source.length + 2) : err.message;
    out[`rejected manifest ${source}`] = kept.has(err) ? `${what} (its last good pod keeps running)` : what;
  }
  return out;
}
