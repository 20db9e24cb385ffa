// Pod status: phase, conditions and container statuses (kubelet_pods.go, status/generate.go) and
// the status manager that holds what bunlet reports for every pod (status/status_manager.go), and
// its apiserver half that patches each pod's status there.
export { createStatusManager, type StatusManager } from "./manager.ts";
export { createStatusGenerator, type StatusGenerator } from "./generator.ts";
export { createStatusSync } from "./api-sync.ts";
export { needToReconcilePodReadiness } from "./conditions.ts";
export { PodReasonError, type ResizeConditions } from "./resize-conditions.ts";
export { PodStartupLatencyTracker } from "./startup-latency.ts";
