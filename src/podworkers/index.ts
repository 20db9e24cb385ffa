// The pod workers: one serialized worker per pod UID and its lifecycle (pod_workers.go).
export { createPodWorkers } from "./pod-workers.ts";
export { WorkQueue } from "./work-queue.ts";
export type { SyncPodType, PodWorkType, UpdatePodOptions, PodSyncer, KnownPodWorker, PodWorkers } from "./types.ts";
