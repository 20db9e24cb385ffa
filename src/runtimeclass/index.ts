/**
 * RuntimeClass: spec.runtimeClassName to the CRI runtime handler, through the apiserver's
 * node.k8s.io/v1 RuntimeClasses (watched). Depends on lib and apiclient.
 */
export { createRuntimeClassManager } from "./manager.ts";
