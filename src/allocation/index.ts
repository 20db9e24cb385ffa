// The allocation manager (pkg/kubelet/allocation): the resources the node allocated to each pod,
// admission against them, and the decision on each in-place resize.
export { createAllocationManager, type AllocationManager, type AdmitResult } from "./manager.ts";
export { podResizeMessage, ResizeCompleted, ResizeError } from "./events.ts";
export { resourceInfoForPod } from "./resources.ts";
