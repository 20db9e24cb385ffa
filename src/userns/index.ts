/**
 * User namespaces (`spec.hostUsers: false`): per-pod host ID ranges from the node's subordinate
 * IDs, allocated without overlap, kept across restarts in the pod directory and freed when the
 * pod is gone (the kubelet's pkg/kubelet/userns). The runtime reads a pod's userns_options from
 * the manager; the wiring feeds it the runtime's handlers and frees ranges.
 */
export {
  DEFAULT_IDS_PER_POD,
  RangeAllocator,
  USERNS_UNIT_LENGTH,
  UsernsAllocationError,
  UsernsConfigError,
  type PodRange,
  type RangeAllocatorOptions,
} from "./allocator.ts";
export {
  defaultMappings,
  getKubeletMappings,
  KUBELET_USER,
  parseGetSubIdsOutput,
  passwdHasUser,
  type KubeletMappings,
  type KubeletMappingsDeps,
} from "./kubelet-mappings.ts";
export { encodeMappings, MAPPINGS_FILE, parseMappings } from "./mappings-file.ts";
export {
  createUserNamespaceManager,
  handlerSupportsUserNamespaces,
  recordPodsFromDisk,
  UserNamespaceError,
  type IdMapping,
  type PodUserNamespace,
  type RuntimeHandlerInfo,
  type UserNamespaceManager,
  type UserNamespaceManagerDeps,
} from "./manager.ts";
export { startUserNamespaceManager, type StartUserNamespaceManagerOptions } from "./start.ts";
