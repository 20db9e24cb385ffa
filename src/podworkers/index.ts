// The pod workers: one serialized worker per pod UID and its lifecycle (pod_workers.go).
export { createPodWorkers, type PodWorkersDeps } from "./pod-workers.ts";
export { WorkQueue } from "./work-queue.ts";
export {
  requeueDelay,
  defaultBackOffPeriodMs,
  backOffOnTransientErrorPeriodMs,
  workerResyncIntervalJitterFactor,
  workerBackOffPeriodJitterFactor,
} from "./requeue.ts";
export { calculateEffectiveGracePeriod, naturalGracePeriod } from "./sync-status.ts";
export type {
  SyncPodType,
  PodWorkType,
  KillPodOptions,
  UpdatePodOptions,
  PodSyncer,
  PodStatusCache,
  KnownPodWorker,
  PodWorkers,
} from "./types.ts";
