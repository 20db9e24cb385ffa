/**
 * The authorization attributes of a request to the kubelet API, as the kubelet's
 * GetRequestAttributes builds them (pkg/kubelet/server/auth.go, KubeletFineGrainedAuthz, GA and
 * locked on since v1.36): resource "nodes", name = the node, API version v1, the verb from the
 * HTTP method, and a subresource from the path. /pods, /runningpods, /healthz and /configz are
 * first checked as their own subresource and then as "proxy"; the request is allowed when any
 * of the attributes is.
 */

export interface RequestAttributes {
  verb: string;
  resource: "nodes";
  subresource: string;
  name: string;
  apiVersion: "v1";
  path: string;
}

/** The kubelet's HTTP method → API verb; other methods (HEAD among them) have no verb. */
const verbs: Record<string, string> = { POST: "create", GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** `path` is `prefix` or below it (the kubelet's isSubpath). */
function isSubpath(path: string, prefix: string): boolean {
  const p = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return path === p || (path.startsWith(p) && path[p.length] === "/");
}

function fineGrained(path: string): string | undefined {
  if (isSubpath(path, "/allocatedPods") || isSubpath(path, "/pods")) return "pods";
  if (isSubpath(path, "/healthz")) return "healthz";
  if (isSubpath(path, "/configz")) return "configz";
  if (isSubpath(path, "/runningpods/")) return "pods";
  return undefined;
}

function coarse(path: string): string {
  if (isSubpath(path, "/stats/")) return "stats";
  if (isSubpath(path, "/metrics")) return "metrics";
  if (isSubpath(path, "/logs/")) return "log";
  if (isSubpath(path, "/checkpoint/")) return "checkpoint";
  if (isSubpath(path, "/statusz")) return "statusz";
  if (isSubpath(path, "/flagz")) return "configz";
  return "proxy";
}

export function requestAttributes(method: string, path: string, nodeName: string): RequestAttributes[] {
  const verb = verbs[method] ?? "";
  const subresources = [fineGrained(path), coarse(path)].filter((s): s is string => s !== undefined);
  return subresources.map((subresource) => ({ verb, resource: "nodes", subresource, name: nodeName, apiVersion: "v1", path }));
}
