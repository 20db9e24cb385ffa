// Volumes: what must be true on the host before a pod's containers mount their volumes.
export { setUpPodVolumes } from "./manager.ts";
