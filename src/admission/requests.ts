/**
 * A pod's resource requests as the scheduler and the kubelet's admission count them
 * (resourcehelper.PodRequests): the regular containers plus the sidecars (restartable init
 * containers), or an init container with the sidecars started before it when that is more, plus
 * the RuntimeClass overhead. CPU in millicores, memory and ephemeral storage in bytes, exact.
 */
import { isRestartableInitContainer, resourceQuantity, type Container, type Pod } from "../api/index.ts";

export interface Requests {
  milliCPU: bigint;
  memory: bigint;
  ephemeralStorage: bigint;
}

const zero = (): Requests => ({ milliCPU: 0n, memory: 0n, ephemeralStorage: 0n });
const add = (a: Requests, b: Requests): Requests => ({
  milliCPU: a.milliCPU + b.milliCPU,
  memory: a.memory + b.memory,
  ephemeralStorage: a.ephemeralStorage + b.ephemeralStorage,
});
const max = (a: Requests, b: Requests): Requests => ({
  milliCPU: a.milliCPU > b.milliCPU ? a.milliCPU : b.milliCPU,
  memory: a.memory > b.memory ? a.memory : b.memory,
  ephemeralStorage: a.ephemeralStorage > b.ephemeralStorage ? a.ephemeralStorage : b.ephemeralStorage,
});

function fromList(list: Readonly<Record<string, string | number>> | undefined): Requests {
  return {
    milliCPU: resourceQuantity(list, "cpu").milliValue(),
    memory: resourceQuantity(list, "memory").value(),
    ephemeralStorage: resourceQuantity(list, "ephemeral-storage").value(),
  };
}

const containerRequests = (c: Container) => fromList(c.resources?.requests);

export function podRequests(pod: Pod): Requests {
  let sum = zero();
  for (const c of pod.spec.containers) sum = add(sum, containerRequests(c));
  let sidecars = zero();
  let initMax = zero();
  for (const c of pod.spec.initContainers ?? []) {
    const r = containerRequests(c);
    if (isRestartableInitContainer(c)) {
      sidecars = add(sidecars, r);
      initMax = max(initMax, sidecars);
    } else {
      initMax = max(initMax, add(r, sidecars));
    }
  }
  const total = max(add(sum, sidecars), initMax);
  return pod.spec.overhead ? add(total, fromList(pod.spec.overhead)) : total;
}

/**
 * The requests admission counts for a pod that may be mid-resize (PodRequests with
 * UseStatusResources): the larger of its spec's, the requests its status says its containers
 * run with, and those it says were allocated, so a pod shrinking in place keeps its old size
 * until the shrink is applied. A resize marked Infeasible does not count its spec.
 */
export function podRequestsWithStatus(pod: Pod): Requests {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  if (statuses.length === 0) return podRequests(pod);
  const withRequests = (pick: (name: string) => Readonly<Record<string, string | number>> | undefined): Requests => {
    const apply = (c: Container): Container => ({ ...c, resources: { requests: pick(c.name) ?? {} } });
    return podRequests({ ...pod, spec: { ...pod.spec, containers: pod.spec.containers.map(apply), initContainers: pod.spec.initContainers?.map(apply) } });
  };
  const status = (name: string) => statuses.find((s) => s.name === name);
  const actuated = withRequests((name) => status(name)?.resources?.requests);
  const allocated = withRequests((name) => status(name)?.allocatedResources);
  const infeasible = pod.status?.conditions?.some((c) => c.type === "PodResizePending" && c.reason === "Infeasible") ?? false;
  const both = max(actuated, allocated);
  return infeasible ? both : max(podRequests(pod), both);
}
