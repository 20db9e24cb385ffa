// Volumes: what must be true on the host before a pod's containers mount their volumes.
export { setUpPodVolumes, mountedVolumeNames, VolumeSetUpError, type VolumeFailure } from "./manager.ts";
export { setUpHostPath, HostPathError, type HostPathFs } from "./hostpath.ts";
