// The managed (embedded) containerd: config rendering, the child process and its readiness.
export { containerdPaths, type ContainerdPaths } from "./paths.ts";
export {
  BUSYBOX_IMAGE,
  configVersionFor,
  DEFAULT_CNI_BIN_DIR,
  DEFAULT_REGISTRY_MIRRORS,
  PAUSE_IMAGE,
  renderContainerdConfig,
  renderRegistryHosts,
  type ContainerdConfigOptions,
  type ContainerdConfigVersion,
} from "./config.ts";
export { CNI_NETWORK_NAME, DEFAULT_BRIDGE_NAME, DEFAULT_POD_SUBNET, renderCniConflist, type CniConflistOptions } from "./cni.ts";
export {
  startManagedContainerd,
  type ManagedContainerd,
  type ManagedContainerdOptions,
  type ManagedContainerdState,
} from "./managed.ts";
export { INSTALL_HINT } from "./process.ts";
export type { ReadinessProbe } from "./types.ts";
export { preloadImages, type PreloadResult } from "./preload.ts";
