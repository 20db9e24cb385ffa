/**
 * The pod sources area of the wiring: PodConfig with the configured sources, and the record of
 * which sources have spoken (nothing is deleted before all have). The broken-manifest reports of
 * the file source are shown on /pods and /healthz?verbose.
 */
import { join } from "node:path";
import type { PodList } from "../api/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { createPodConfig, type PodConfig } from "../podconfig/index.ts";
import { annotateManifestErrors, manifestErrorDetail } from "../podconfig/index.ts";
import { SourcesReady } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";

export interface SourceParts extends AsyncDisposable {
  podConfig: PodConfig;
  sourcesReady: SourcesReady;
  /** Puts each kept pod's manifest error on it (the /pods view). */
  annotate(list: PodList): PodList;
  /** /healthz?verbose lines of this area. */
  detail(): Record<string, unknown>;
}

/**
 * apiClient: the node area's rate-limited client when bunlet joins a cluster (the apiserver
 * source); checkpoint: its pods are the apiserver source's first snapshot (--offline-start).
 */
export function wirePodSources(config: BunletConfig, base: WireBase, apiClient?: ApiClient, checkpoint?: Checkpoint): SourceParts {
  const { clock, log, metrics, random, signal } = base;
  const stack = new AsyncDisposableStack();
  const podConfig = createPodConfig({
    staticPodPath: config.staticPodPath,
    lastGoodDir: join(config.rootDir, "static-pods"),
    staticPodURL: config.staticPodURL,
    staticPodURLHeader: config.staticPodURLHeader,
    nodeName: config.nodeName,
    fileCheckFrequencyMs: config.fileCheckFrequencyMs,
    httpCheckFrequencyMs: config.httpCheckFrequencyMs,
    apiserver: apiClient ? { client: apiClient, random, checkpoint, observe: (pod, when) => base.startupLatency.observedPodOnWatch(pod, when) } : undefined,
    clock,
    log,
    metrics,
    signal,
  });
  deferLogged(stack, log, "pod config", () => podConfig.stop());
  return {
    podConfig,
    sourcesReady: new SourcesReady((seen) => podConfig.seenAllSources(seen)),
    annotate: (list) => annotateManifestErrors(list, podConfig.keptPodErrors()),
    detail: () => manifestErrorDetail(podConfig.lastManifestErrors(), podConfig.keptPodErrors()),
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}
