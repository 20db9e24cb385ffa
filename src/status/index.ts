// Pod status: phase, conditions and container statuses (kubelet_pods.go, status/generate.go) and
// the status manager that holds what bunlet reports for every pod (status/status_manager.go).
export { createStatusManager, type StatusManager } from "./manager.ts";
export { createStatusGenerator, type StatusGenerator } from "./generator.ts";
