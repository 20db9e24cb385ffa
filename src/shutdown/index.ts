/**
 * Graceful node shutdown on systemd-logind (shutdownGracePeriod, shutdownGracePeriodCriticalPods):
 * an inhibitor lock, and the pods stopped in two groups when logind announces a shutdown.
 */
export { ShutdownManager } from "./manager.ts";
export * as logind from "./logind.ts";
