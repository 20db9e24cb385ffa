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
  code: string;
  field: string;
}

/**
 * The kind of each problem, in the apiserver's words, without the value it concerns: these
 * lines are served on the unauthenticated ports, and a manifest's values (an env value, a
 * command line, a line of YAML) may be secrets. The whole error is in the log and on the pod.
 */
const problem: Record<string, string> = {
  Unreadable: "cannot be read",
  TooLarge: "is too large",
  Syntax: "cannot be parsed",
  TypeInvalid: "Invalid value",
  Required: "Required value",
  Invalid: "Invalid value",
  NotSupported: "Unsupported value",
  Duplicate: "Duplicate value",
  NotFound: "Not found",
  Forbidden: "Forbidden",
  TooLong: "Too long",
};

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
 * /healthz?verbose lines: "rejected manifests: N", then one "rejected manifest <source>: <field>:
 * <kind of problem> (see the log)" per manifest, saying when its last good pod keeps running.
 */
export function manifestErrorDetail(errors: Map<string, RejectedManifest>, keptPodErrors: Map<string, RejectedManifest>): Record<string, string> {
  if (errors.size === 0) return {};
  const kept = new Set(keptPodErrors.values());
  const out: Record<string, string> = { "rejected manifests": String(errors.size) };
  for (const [source, err] of errors) {
    const kind = problem[err.code] ?? "rejected";
    const what = `${err.field === "" ? kind : `${err.field}: ${kind}`} (see the log)`;
    out[`rejected manifest ${source}`] = kept.has(err) ? `${what} (its last good pod keeps running)` : what;
  }
  return out;
}
