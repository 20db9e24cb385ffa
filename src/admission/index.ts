/**
 * Pod admission: the kubelet's canAdmitPod predicates (OS, resources, node name, node affinity,
 * host ports, NoExecute taints), pure, over the node as admission sees it. Depends on api only.
 */
export { canAdmitPod, type AdmissionNode } from "./predicates.ts";
