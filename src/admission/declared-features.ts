/**
 * Node declared features (KEP-5328; k8s.io/component-helpers/nodedeclaredfeatures, GA in 1.37):
 * the node lists in status.declaredFeatures the features of the kubelet's registry it supports;
 * the scheduler places a pod only on a node that declares what the pod needs, the apiserver
 * sends WebSocket streams only to a node that declares ExtendWebSocketsToKubelet, and the kubelet
 * rejects a pod (bound past the scheduler, or static) that needs a feature it does not declare.
 * A kubelet v1.37.2 with default gates declares ExtendWebSocketsToKubelet,
 * InPlacePodLevelResourcesVerticalScaling, InPlacePodVerticalScalingInitContainers and
 * RestartAllContainersOnContainerExits. bunlet declares what it implements and nothing else; the
 * table says why each feature is or is not declared.
 */
import type { Pod } from "../api/index.ts";

interface DeclaredFeature {
  name: string;
  /** Whether bunlet implements it, so declares it. */
  declared: boolean;
  why: string;
  /** InferForScheduling: the pod cannot run on a node without the feature. */
  requiredBy(pod: Pod): boolean;
}

const containersOf = (pod: Pod) => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

/** features.AllFeatures, sorted by name as the framework sorts it. */
export const declaredFeatureTable: readonly DeclaredFeature[] = [
  {
    name: "DRANodeAllocatableResources",
    declared: false,
    why: "bunlet has no dynamic resource allocation (DRA drivers, ResourceSlices)",
    requiredBy: () => false,
  },
  {
    name: "DRAOptionalNodeOperations",
    declared: false,
    why: "bunlet has no dynamic resource allocation",
    requiredBy: () => false,
  },
  {
    name: "ExtendWebSocketsToKubelet",
    declared: false,
    why: "bunlet passes WebSocket exec and attach streams to the runtime, but does not translate port-forward's SPDY-over-WebSocket tunnel; undeclared, the apiserver translates WebSockets to SPDY before they reach the node, so kubectl exec, attach and port-forward all work",
    requiredBy: () => false,
  },
  {
    name: "InPlacePodLevelResourcesVerticalScaling",
    declared: false,
    why: "bunlet does not resize pod-level resources in place",
    requiredBy: () => false,
  },
  {
    name: "InPlacePodVerticalScalingInitContainers",
    declared: false,
    why: "bunlet does not resize init containers in place",
    requiredBy: () => false,
  },
  {
    name: "InPlacePodVerticalScalingMemoryBackedVolumes",
    declared: false,
    why: "bunlet does not resize memory-backed emptyDir volumes in place",
    requiredBy: () => false,
  },
  {
    name: "RestartAllContainersOnContainerExits",
    declared: false,
    why: "bunlet's restart rules know the action Restart only, not RestartAllContainers",
    requiredBy: (pod) => containersOf(pod).some((c) => (c.restartPolicyRules ?? []).some((r) => r.action === "RestartAllContainers")),
  },
  {
    name: "UserNamespacesHostNetworkSupport",
    declared: false,
    why: "bunlet does not run host-network pods in a user namespace",
    requiredBy: (pod) => pod.spec.hostNetwork === true && pod.spec.hostUsers === false,
  },
  {
    name: "VolumeBindMountOptions",
    declared: false,
    why: "bunlet does not apply volume mounts' bindMountOptions",
    requiredBy: (pod) =>
      [...containersOf(pod), ...(pod.spec.ephemeralContainers ?? [])].some((c) =>
        (c.volumeMounts ?? []).some((m) => ((m as { bindMountOptions?: unknown[] }).bindMountOptions ?? []).length > 0),
      ),
  },
];

/** status.declaredFeatures: the sorted names bunlet declares (none yet: see the table). */
export function nodeDeclaredFeatures(): string[] {
  return declaredFeatureTable.filter((f) => f.declared).map((f) => f.name);
}

/** The declared-features admit handler: a pod needing an undeclared feature is rejected. */
export function admitDeclaredFeatures(pod: Pod, declared: readonly string[]): { admit: true } | { admit: false; reason: string; message: string } {
  const missing = declaredFeatureTable.filter((f) => f.requiredBy(pod) && !declared.includes(f.name)).map((f) => f.name);
  if (missing.length === 0) return { admit: true };
  return { admit: false, reason: "PodFeatureUnsupported", message: `Pod requires node features that are not available: ${missing.join(", ")}` };
}
