// Volumes: what must be true on the host before a pod's containers mount their volumes.
export { setUpPodVolumes, mountedVolumeNames, VolumeSetUpError, type VolumeFailure } from "./manager.ts";
export { setUpHostPath, HostPathError, hostPathTypes, realHostPathFs, type HostPathFs, type HostPathType } from "./hostpath.ts";
