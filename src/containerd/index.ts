// The managed (embedded) containerd: config rendering, the child process and its readiness.
export { containerdPaths } from "./paths.ts";
export { BUSYBOX_IMAGE, PAUSE_IMAGE } from "./config.ts";
export { DEFAULT_POD_SUBNET, renderedPodNetwork, writeCniConflist } from "./cni.ts";
export { startManagedContainerd, type ManagedContainerd } from "./managed.ts";
export { preloadImages } from "./preload.ts";
export { sandboxImageFromStatusInfo } from "./status-info.ts";
