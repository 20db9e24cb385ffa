export * from "./v1.ts";
export * from "./v1-volumes.ts";
export { Quantity, QuantityError, resourceQuantity, type QuantityFormat } from "./quantity.ts";
export { computePodQOS, type QOSClass } from "./qos.ts";
export { defaultImagePullPolicy, ImageNameError, parseImageName, type ImageName } from "./image.ts";
export { kObj, ObjectRef } from "./object-ref.ts";
export { normalizeSysctlName } from "./sysctl.ts";
export {
  DefaultRestartPolicy,
  isCriticalPod,
  isCriticalPodBasedOnPriority,
  isMirrorPod,
  isNodeCriticalPod,
  isRestartableInitContainer,
  isSidecarContainer,
  podRestartPolicy,
} from "./pod-rules.ts";
