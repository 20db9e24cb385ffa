// The PLEG: lifecycle events from the runtime (relisting and the CRI event stream) and the pod cache.
export { createPleg, type Pleg, type PlegDeps, type PlegStatus } from "./pleg.ts";
export { GenericPleg, type GenericPlegDeps, type Health } from "./generic.ts";
export { EventedPleg, type EventedPlegDeps } from "./evented.ts";
export { computeEvents, computePodEvents, containerIdsOf, convertState, generateEvents, type PlegContainerState } from "./compute-events.ts";
export { podStatusFromEvent, lifecycleEventsFor } from "./event-status.ts";
export { PodCache, type CacheEntry } from "./cache.ts";
export { criEventSource, type ContainerEventSource, type PlegMetrics, type PodLister } from "./deps.ts";
export { transition, modeOf, type PlegMode, type PlegModeState, type PlegModeInput, type PlegModeAction } from "./mode.ts";
export {
  DEFAULT_PLEG_OPTIONS,
  EVENTED_RELIST,
  GENERIC_RELIST,
  PLEG_CHANNEL_CAPACITY,
  plegOptions,
  type PlegOptions,
  type RelistDuration,
} from "./options.ts";
export type { PodLifecycleEvent, PodLifecycleEventType } from "./types.ts";
