/** CRI Status → whether the runtime and its network are ready (updateRuntimeUp's inputs). */
import type { CriClient } from "../cri/index.ts";

export async function runtimeStatus(
  cri: CriClient,
  opts: { signal: AbortSignal },
): Promise<{ runtimeReady: boolean; networkReady: boolean; message: string }> {
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
  return { runtimeReady: runtime?.status === true, networkReady: network?.status === true, message: problems.join("; ") };
}
