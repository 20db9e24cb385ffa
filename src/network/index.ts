/**
 * The embedded runtime's pod network in a cluster: the pod CIDR from the Node (handed to the
 * runtime), host-gw routes to the other Nodes' pod CIDRs, and the masquerade rules. Depends on
 * lib and apiclient; the wiring says how a pod CIDR reaches the runtime.
 */
export { createPodNetwork, type PodCIDRApplier } from "./controller.ts";
export { createHostNetwork } from "./host.ts";
export { runCommand } from "./exec.ts";
export { followsNodePodCIDR, networkMode, type NetworkMode } from "./mode.ts";
