/** CRI Status → whether the runtime and its network are ready (updateRuntimeUp's inputs), and its handlers. */
import type { CriClient } from "../cri/index.ts";

/** A runtime handler and the features the kubelet reads from it (toKubeRuntimeStatus). */
export interface RuntimeHandlerStatus {
  name: string;
  recursiveReadOnlyMounts: boolean;
  userNamespaces: boolean;
}

export interface RuntimeStatusSummary {
  runtimeReady: boolean;
  networkReady: boolean;
  message: string;
  /** runtime_handlers: empty from a runtime older than the field (containerd 1.x). */
  handlers: RuntimeHandlerStatus[];
}

export async function runtimeStatus(cri: CriClient, opts: { signal: AbortSignal }): Promise<RuntimeStatusSummary> {
  const res = await cri.runtime.status({}, opts);
  const conditions = res.status?.conditions ?? [];
  const find = (type: string) => conditions.find((c) => c.type === type);
  const runtime = find("RuntimeReady");
  const network = find("NetworkReady");
  const problems = [runtime, network]
    .filter((c) => c && !c.status)
    .map((c) => `${c!.type}=false reason:${c!.reason} message:${c!.message}`);
  if (!runtime) problems.unshift("runtime did not report RuntimeReady");
  if (!network) problems.push("runtime did not report NetworkReady");
  const handlers = (res.runtimeHandlers ?? []).map((h) => ({
    name: h.name,
    recursiveReadOnlyMounts: h.features?.recursiveReadOnlyMounts ?? false,
    userNamespaces: h.features?.userNamespaces ?? false,
  }));
  return { runtimeReady: runtime?.status === true, networkReady: network?.status === true, message: problems.join("; "), handlers };
}
