/**
 * The part of the kubelet's volume manager bunlet needs before a pod's containers are created
 * (WaitForAttachAndMount): every volume a container mounts is set up, and a pod whose volumes
 * cannot be set up gets no sandbox and no containers; it stays Pending with its containers in
 * ContainerCreating, and its pod worker retries with backoff. Only hostPath needs a SetUp today
 * (emptyDir directories are made with the container's mounts, in src/runtime).
 */
import type { Pod } from "../api/index.ts";
import { setUpHostPath, realHostPathFs, type HostPathFs } from "./hostpath.ts";

/** One volume's failed SetUp, worded as the kubelet's FailedMount event. */
export interface VolumeFailure {
  volume: string;
  message: string;
}

/** The pod's volumes could not all be set up; the message lists each failure. */
export class VolumeSetUpError extends Error {
  override readonly name = "VolumeSetUpError";
  constructor(readonly failures: readonly VolumeFailure[]) {
    const names = failures.map((f) => f.volume).join(" ");
    const details = failures.map((f) => `MountVolume.SetUp failed for volume ${JSON.stringify(f.volume)} : ${f.message}`).join("; ");
    super(`unmounted volumes=[${names}]: ${details}`);
  }
}

/** Names of the volumes some container, init container or ephemeral container mounts (GetPodVolumeNames). */
export function mountedVolumeNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])];
  for (const c of containers) for (const m of c.volumeMounts ?? []) names.add(m.name);
  return names;
}

/** Sets up every mounted volume of the pod; throws VolumeSetUpError naming each one that failed. */
export function setUpPodVolumes(pod: Pod, fs: HostPathFs = realHostPathFs): void {
  const used = mountedVolumeNames(pod);
  const failures: VolumeFailure[] = [];
  for (const volume of pod.spec.volumes ?? []) {
    if (!used.has(volume.name) || !volume.hostPath) continue;
    try {
      setUpHostPath(volume.hostPath.path, volume.hostPath.type ?? "", fs);
    } catch (err) {
      failures.push({ volume: volume.name, message: err instanceof Error ? err.message : String(err) });
    }
  }
  if (failures.length > 0) throw new VolumeSetUpError(failures);
}
