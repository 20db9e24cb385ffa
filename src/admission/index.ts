/**
 * Pod admission: the kubelet's canAdmitPod predicates (OS, resources, node name, node affinity,
 * host ports, NoExecute taints) and its sysctl allowlist, pure, over the node as admission sees it.
 * Depends on api only.
 */
export { canAdmitPod, type AdmissionNode } from "./predicates.ts";
export { podRequests, podRequestsWithStatus } from "./requests.ts";
export { createSysctlAllowlist, safeSysctls, SysctlPatternError, type SysctlAllowlist } from "./sysctls.ts";
export { admitDeclaredFeatures, nodeDeclaredFeatures } from "./declared-features.ts";
