/**
 * REST paths of API resources: `/api/v1/...` for the core group, `/apis/<group>/<version>/...`
 * for the others. Names and namespaces are path segments, so they are escaped.
 */

export interface ResourceRef {
  /** "v1" or "<group>/<version>", as in an object's apiVersion. */
  apiVersion: string;
  /** Plural resource name: "nodes", "pods", "leases". */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export function resourcePath(ref: ResourceRef): string {
  const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  let path = base;
  if (ref.namespace) path += `/namespaces/${encodeURIComponent(ref.namespace)}`;
  path += `/${ref.resource}`;
  if (ref.name !== undefined) path += `/${encodeURIComponent(ref.name)}`;
  if (ref.subresource) path += `/${ref.subresource}`;
  return path;
}
