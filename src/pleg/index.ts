// The PLEG: lifecycle events from the runtime (relisting and the CRI event stream) and the pod cache.
export { createPleg, type Pleg } from "./pleg.ts";
export { GenericPleg } from "./generic.ts";
export { PodCache } from "./cache.ts";
export { describePlegStatus } from "./status-text.ts";
export type { PodLifecycleEvent, PodLifecycleEventType } from "./types.ts";
