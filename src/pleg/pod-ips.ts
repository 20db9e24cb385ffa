import type { RuntimePodStatus } from "../container/index.ts";
import type { PodCache } from "./cache.ts";

/**
 * Keeps a pod's IPs across cache updates once its network is gone: the API expects a finished
 * pod to still show the IP it had, but a status read after teardown has none. New IPs win; with
 * no IPs and no ready sandbox, the cached IPs stay.
 */
export function preservedPodIPs(cache: PodCache, uid: string, status: RuntimePodStatus): string[] {
  if (status.ips.length > 0) return status.ips;
  const old = cache.get(uid).status.ips;
  if (old.length === 0) return [];
  if (status.sandboxStatuses.some((s) => s.state === "ready")) return status.ips;
  return old;
}
