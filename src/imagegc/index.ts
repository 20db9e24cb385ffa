/**
 * Image garbage collection (the kubelet's image manager): by the image filesystem's usage, the
 * high and low thresholds, imageMinimumGCAge and imageMaximumGCAge; and the reclaim step the
 * eviction manager runs before evicting pods.
 */
export { ImageGCManager } from "./manager.ts";
