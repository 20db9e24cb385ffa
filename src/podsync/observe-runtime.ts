/**
 * Before the first config update is routed, the pod workers learn what the runtime already runs,
 * so the new version of a static pod edited while bunlet was stopped waits for the old one, which
 * the first housekeeping kills.
 */
import type { Logger } from "../lib/index.ts";
import type { PodWorkers, Runtime } from "./types.ts";

export async function observeRuntimeAtStart(
  deps: { runtime: Pick<Runtime, "getPods">; podWorkers: Pick<PodWorkers, "observeRuntimePods">; log: Logger },
  signal: AbortSignal,
): Promise<void> {
  try {
    deps.podWorkers.observeRuntimePods(await deps.runtime.getPods({ all: false, signal }));
  } catch (err) {
    if (signal.aborted) return;
    deps.log.warn("Could not list the runtime's pods at start-up; static pods are held back for old versions from the first housekeeping on", { err });
  }
}
