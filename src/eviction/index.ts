/**
 * The eviction manager: thresholds parsed as the kubelet parses evictionHard/evictionSoft,
 * signals from the Summary API, node pressure conditions, node-level reclaim, then pods evicted
 * in the kubelet's order with its status and message.
 */
export { EvictionManager } from "./manager.ts";
export { hardThresholdsForAllocatable, parseThresholdConfig, ThresholdError, type Threshold } from "./thresholds.ts";
