/**
 * The container manager (the kubelet's pkg/kubelet/cm): the kubepods / QoS tier / pod cgroup
 * hierarchy for the cgroupfs and systemd drivers on cgroup v1 and v2, the pod cgroup's values,
 * node allocatable and its enforcement on kubepods and the reserved cgroups. Depends on api and lib.
 *
 * For in-place resize: `ContainerManager.updatePodCgroup(pod, resources)` writes a running pod's
 * pod-cgroup CPU and memory values (only the fields given), and `podResourceConfig(pod)` gives
 * the values a pod's spec asks for.
 */
export { createContainerManager, type ContainerManager } from "./manager.ts";
export { runQOSUpdates } from "./qos-updates.ts";
export { enforceReservedCgroups } from "./reserved.ts";
export { QUOTA_PERIOD_US } from "./resource-config.ts";
export { CgroupError, createCgroupFs, type CgroupFs } from "./cgroupfs.ts";
export { cgroupSubsystems } from "./subsystems.ts";
export { systemdBooted, systemdSliceCreator, SYSTEMD_NOT_RUNNING } from "./systemd.ts";
export {
  allocatableReservation,
  cgroupConfigFor,
  kubepodsLimits,
  nodeAllocatable,
  validateNodeAllocatable,
} from "./allocatable.ts";
export type { ResourceAmounts } from "./pod-resources.ts";
export { machineCapacity } from "./capacity.ts";
export { systemContainers } from "./system-containers.ts";
