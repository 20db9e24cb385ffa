/**
 * The PLEG's PodLister over CRI is the runtime manager's own views (src/runtime runtimeViews).
 * This alias only remains because scripts/bench-pleg.ts imports it by this name; once the bench
 * imports runtimeViews from src/runtime/index.ts, this file can be deleted.
 */
export { runtimeViews as criPodLister } from "../../../src/runtime/index.ts";
