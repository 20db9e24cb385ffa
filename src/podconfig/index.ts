// Pod sources and PodConfig: what should run on this node, as an ordered stream of PodUpdates.
export {
  PodStorage,
  podsDifferSemantically,
  formatSeenTime,
  type PodUpdate,
  type PodOperation,
  type PodStorageOptions,
  type InvalidPodEvent,
} from "./storage.ts";
export { decodeManifest, decodeManifestList, maxConfigLength, type DecodeOptions } from "./decode.ts";
export { ManifestError, type ManifestErrorCode, type FieldError } from "./errors.ts";
export { staticPodUID, staticPodName } from "./static.ts";
export { imageTag } from "./defaults.ts";
export type { PodSource } from "./source.ts";
export { FileSource, type FileSourceOptions, type ManifestErrorMetrics } from "./file-source.ts";
export { HttpSource, type HttpSourceOptions, type PollResult } from "./http-source.ts";
export {
  createPodConfig,
  defaultFileCheckFrequencyMs,
  defaultHttpCheckFrequencyMs,
  type PodConfig,
  type PodConfigOptions,
} from "./podconfig.ts";
