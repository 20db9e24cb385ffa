/**
 * User namespaces (`spec.hostUsers: false`): per-pod host ID ranges from the node's subordinate
 * IDs, allocated without overlap, kept across restarts in the pod directory and freed when the
 * pod is gone (the kubelet's pkg/kubelet/userns). The runtime reads a pod's userns_options from
 * the manager; the wiring feeds it the runtime's handlers and frees ranges.
 */
export type { RuntimeHandlerInfo, UserNamespaceManager } from "./manager.ts";
export { startUserNamespaceManager } from "./start.ts";
