/**
 * Where a pod's volumes live on the host, the kubelet's layout:
 * `<podsDir>/<uid>/volumes/<plugin dir>/<volume name>` with the plugin name's "/" escaped as "~"
 * (kubernetes.io~configmap, …). The volume manager sets them up there and the runtime bind-mounts
 * them into containers from there. hostPath volumes are the host path itself.
 */
import { join } from "node:path";
import type { Volume } from "../api/index.ts";

/** The plugin of each volume type bunlet sets up, by the kubelet's plugin name. */
const plugins = {
  emptyDir: "kubernetes.io/empty-dir",
  configMap: "kubernetes.io/configmap",
  secret: "kubernetes.io/secret",
  downwardAPI: "kubernetes.io/downward-api",
  projected: "kubernetes.io/projected",
} as const;

export type PluginVolumeType = keyof typeof plugins;

/** The volume's type among the plugins bunlet sets up, or undefined. */
export function pluginVolumeType(volume: Volume): PluginVolumeType | undefined {
  return (Object.keys(plugins) as PluginVolumeType[]).find((k) => volume[k] !== undefined);
}

/** The kubelet's plugin name of a volume bunlet sets up (hostPath too), for the volume metrics. */
export function volumePluginName(volume: Volume): string | undefined {
  if (volume.hostPath) return "kubernetes.io/host-path";
  const type = pluginVolumeType(volume);
  return type && plugins[type];
}

/** `<podsDir>/<uid>/volumes/<plugin dir>/<name>`. */
export function podVolumeDir(podsDir: string, uid: string, type: PluginVolumeType, name: string): string {
  return join(podsDir, uid, "volumes", plugins[type].replace("/", "~"), name);
}
