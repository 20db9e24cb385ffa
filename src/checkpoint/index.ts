// The node's own record of its desired state, for starting without the apiserver (issue 27), and
// the kubelet's resource checkpoints (allocated and actuated resources of each pod).
export type { Checkpoint } from "./checkpoint.ts";
export { openCheckpoint } from "./open.ts";
export { createPodResourcesStore, type PodResourcesStore } from "./pod-resources.ts";
