/**
 * Allocated resources as the kubelet's allocation manager reads and applies them
 * (allocation_manager.go ResourceInfoForPod, updatePodFromAllocation): every container of the pod
 * is resizable (regular ones, and init containers since InPlacePodVerticalScalingInitContainers
 * went GA in 1.37), and a pod "with its allocation" is the pod whose containers carry the
 * allocated resources instead of the desired ones. Pure.
 */
import { Quantity, type Container, type Pod, type ResourceRequirements } from "../api/index.ts";
import { cloneJson } from "../lib/index.ts";

/** The resources of one pod's containers, by container name (the checkpoint's entry). */
export interface PodResourceInfo {
  containers: Record<string, ResourceRequirements>;
}

const allContainers = (pod: Pod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

/** ResourceInfoForPod: each container's resources as the pod asks for them now. */
export function resourceInfoForPod(pod: Pod): PodResourceInfo {
  const containers: Record<string, ResourceRequirements> = {};
  for (const c of allContainers(pod)) containers[c.name] = cloneJson(c.resources ?? {});
  return { containers };
}

function listsEqual(a: Readonly<Record<string, string | number>> | undefined, b: Readonly<Record<string, string | number>> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b?.[k] !== undefined && Quantity.fromJSON(a![k]!).equal(Quantity.fromJSON(b[k]!)));
}

/**
 * apiequality.Semantic.DeepEqual of two ResourceRequirements: quantities by value ("1" equals
 * "1000m"), an empty list equal to a missing one.
 */
function resourcesEqual(a: ResourceRequirements | undefined, b: ResourceRequirements | undefined): boolean {
  return listsEqual(a?.limits, b?.limits) && listsEqual(a?.requests, b?.requests);
}

/**
 * The pod with each container's allocated resources where they differ from the spec (a copy
 * only then); `updated` says whether any did.
 */
export function updatePodFromAllocation(pod: Pod, allocated: PodResourceInfo): { pod: Pod; updated: boolean } {
  const differs = (c: Container) => {
    const alloc = allocated.containers[c.name];
    return alloc !== undefined && !resourcesEqual(c.resources, alloc);
  };
  if (!allContainers(pod).some(differs)) return { pod, updated: false };
  const apply = (c: Container): Container => (differs(c) ? { ...c, resources: cloneJson(allocated.containers[c.name]!) } : c);
  const spec = { ...pod.spec, containers: pod.spec.containers.map(apply) };
  if (pod.spec.initContainers) spec.initContainers = pod.spec.initContainers.map(apply);
  return { pod: { ...pod, spec }, updated: true };
}
