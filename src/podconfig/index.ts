// Pod sources and PodConfig: what should run on this node, as an ordered stream of PodUpdates.
// PodStorage.merge is the contract DESIGN.md promises (the kubelet's ordered PodUpdates).
export { PodStorage, type PodUpdate } from "./storage.ts";
export { createPodConfig, type PodConfig } from "./podconfig.ts";
export { annotateManifestErrors, manifestErrorDetail } from "./manifest-errors.ts";
