/**
 * doPodResizeAction (kuberuntime_manager.go): apply an allocated resize to a running pod. Memory
 * first, then CPU, each in the kubelet's order: when the pod's total grows, the pod cgroup grows
 * before the containers (limits before requests); when it shrinks, after them (requests before
 * limits). Before anything is touched, a memory limit that would go below what the pod or a
 * container uses now is refused, so a resize never half-applies for that. Each container gets
 * UpdateContainerResources with the new values of the resource being resized and the current
 * values of the other; what the runtime accepted is recorded as actuated at once. A failure stops
 * the resize; the next sync retries what is left.
 */
import { podRef, Quantity, type Container, type Pod, type ResourceRequirements } from "../api/index.ts";
import { makeLinuxContainerResources, type CriClient } from "../cri/index.ts";
import type { RuntimeContainerStatus, RuntimePodStatus } from "../container/index.ts";
import type { Logger } from "../lib/index.ts";
import type { PodActions } from "./actions-types.ts";
import { containerLinuxResources, containerOOMScoreAdjust } from "./resources.ts";
import type { ContainerToUpdate, ResourceValues } from "./resize-actions.ts";

/** The pod cgroup's CPU and memory values (cm.ResourceConfig): undefined = not set. */
export interface PodCgroupValues {
  memoryLimit?: bigint;
  cpuShares?: bigint;
  cpuQuota?: bigint;
  cpuPeriod?: bigint;
}

/**
 * The pod cgroup, through the container manager (src/cm): the values a pod's resources give it
 * (ResourceConfigForPod), and a write of some of them to the running pod's cgroup.
 */
export interface PodCgroupResizer {
  config(pod: Pod): PodCgroupValues;
  set(pod: Pod, values: PodCgroupValues): void;
}

/** What the runtime was told for each container; recorded after each accepted update. */
export interface ActuatedStore {
  get(uid: string, containerName: string): ResourceRequirements | undefined;
  setContainer(uid: string, containerName: string, resources: ResourceRequirements): void;
  /** InitializeActuatedPod: a pod with no record gets its allocated resources as actuated. */
  initializePod(pod: Pod): void;
}

export interface ResizeDeps {
  cri: CriClient;
  log: Logger;
  cgroupV2: boolean;
  env: { memoryCapacity: number };
  actuated: ActuatedStore;
  /** undefined: bunlet runs no pod cgroups, and only the containers are resized. */
  podCgroup?: PodCgroupResizer;
}

/** The resize could not be applied; the message is the kubelet's. */
export class ResizeError extends Error {
  override readonly name = "ResizeError";
}

const quantities = (v: ResourceValues): ResourceRequirements => ({
  limits: { cpu: Quantity.ofMilli(v.cpuLimit, "DecimalSI").toString(), memory: Quantity.of(v.memoryLimit, "BinarySI").toString() },
  requests: { cpu: Quantity.ofMilli(v.cpuRequest, "DecimalSI").toString(), memory: Quantity.of(v.memoryRequest, "BinarySI").toString() },
});

/** The values sent for one resource: desired for it, current for the other (updatePodContainerResources). */
function mixed(resource: "memory" | "cpu", u: ContainerToUpdate): ResourceValues {
  return resource === "memory"
    ? { memoryLimit: u.desired.memoryLimit, memoryRequest: u.desired.memoryRequest, cpuLimit: u.current.cpuLimit, cpuRequest: u.current.cpuRequest }
    : { memoryLimit: u.current.memoryLimit, memoryRequest: u.current.memoryRequest, cpuLimit: u.desired.cpuLimit, cpuRequest: u.desired.cpuRequest };
}

async function updateContainer(deps: ResizeDeps, pod: Pod, container: Container, id: string, values: ResourceValues, signal?: AbortSignal): Promise<void> {
  const resources = quantities(values);
  const r = containerLinuxResources(resources);
  const linux = makeLinuxContainerResources({
    cpuShares: r.cpuShares,
    cpuQuota: r.cpuQuota,
    cpuPeriod: r.cpuPeriod,
    memoryLimitInBytes: r.memoryLimitInBytes,
    oomScoreAdj: BigInt(containerOOMScoreAdjust(pod, { ...container, resources }, deps.env.memoryCapacity)),
    unified: deps.cgroupV2 ? { "memory.oom.group": "1" } : {},
  });
  await deps.cri.runtime.updateContainerResources({ containerId: id, linux }, { signal });
  deps.actuated.setContainer(pod.metadata.uid ?? "", container.name, resources);
}

/** The pod with each container's actuated resources (those it has none for keep the spec's). */
function actuatedPod(pod: Pod, actuated: ActuatedStore): Pod {
  const uid = pod.metadata.uid ?? "";
  const apply = (c: Container): Container => ({ ...c, resources: actuated.get(uid, c.name) ?? c.resources });
  return { ...pod, spec: { ...pod.spec, containers: pod.spec.containers.map(apply), initContainers: pod.spec.initContainers?.map(apply) } };
}

/** Memory usage in bytes (CRI ContainerStats usage_bytes) per container id; undefined = unknown. */
export type MemoryUsage = (containerId: string, signal?: AbortSignal) => Promise<bigint | undefined>;

/** validateMemoryResizeAction: no memory limit may go to or below what is used now. */
async function validateMemoryResize(
  usage: MemoryUsage,
  running: RuntimeContainerStatus[],
  updates: ContainerToUpdate[],
  podLimit: { current?: bigint; desired?: bigint },
  signal?: AbortSignal,
): Promise<void> {
  const podLimitDecreasing = podLimit.desired !== undefined && (podLimit.current === undefined || podLimit.desired < podLimit.current);
  const decreasing = updates.filter((u) => u.desired.memoryLimit !== 0n && (u.current.memoryLimit === 0n || u.desired.memoryLimit < u.current.memoryLimit));
  if (!podLimitDecreasing && decreasing.length === 0) return;
  const used = new Map<string, bigint | undefined>();
  for (const c of running) used.set(c.name, await usage(c.id, signal));
  // The pod's usage as the sum of its running containers' (bunlet reads no pod cgroup stats here).
  const podUsage = [...used.values()].every((v) => v !== undefined) ? [...used.values()].reduce((a, b) => a! + b!, 0n) : undefined;
  const errs: string[] = [];
  if (podLimitDecreasing) {
    if (podUsage === undefined) errs.push("missing pod memory usage");
    else if (podUsage >= podLimit.desired!) errs.push(`attempting to set pod memory limit (${podLimit.desired}) below current usage (${podUsage})`);
  }
  for (const u of decreasing) {
    const v = used.get(u.container.name);
    if (v === undefined) errs.push(`missing container "${u.container.name}" memory usage`);
    // The kubelet prints the pod's usage here (its podUsageStats), not the container's.
    else if (v >= u.desired.memoryLimit) errs.push(`attempting to set container "${u.container.name}" memory limit (${u.desired.memoryLimit}) below current usage (${podUsage ?? v})`);
  }
  // utilerrors.NewAggregate: one error as itself, several as "[a, b]".
  if (errs.length > 0) throw new ResizeError(`cannot decrease memory limits: ${errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`}`);
}

/**
 * Applies changes.containersToUpdate (and the pod cgroup when updatePodResources or a container
 * changes); throws ResizeError with the kubelet's message when something could not be applied.
 */
export async function doPodResizeAction(
  deps: ResizeDeps,
  usage: MemoryUsage,
  pod: Pod,
  podStatus: RuntimePodStatus,
  changes: PodActions,
  signal?: AbortSignal,
): Promise<void> {
  const updates = changes.containersToUpdate ?? { memory: [], cpu: [] };
  const cgroup = deps.podCgroup;
  const desired = cgroup?.config(pod);
  // The pod cgroup has what the containers were last given (their actuated resources): the
  // container manager made it from the allocated pod, and only a resize changes it.
  let current = cgroup?.config(actuatedPod(pod, deps.actuated));
  const resizeMemory = updates.memory.length > 0 || changes.updatePodResources === true;
  if (resizeMemory) {
    const running = podStatus.containerStatuses.filter((c) => c.state === "running" && pod.spec.containers.some((s) => s.name === c.name));
    await validateMemoryResize(usage, running, updates.memory, { current: current?.memoryLimit, desired: desired?.memoryLimit }, signal);
  }

  const setPodCgroup = async (values: PodCgroupValues) => {
    cgroup!.set(pod, values);
    current = { ...current, ...values };
  };
  /** resizeContainers: grow the pod cgroup first, shrink it last; limits outside requests. */
  const resize = async (resource: "memory" | "cpu", limit: { cur: bigint; next: bigint }, request: { cur: bigint; next: bigint }, setLimit: () => Promise<void>, setRequest: () => Promise<void>) => {
    if (cgroup && limit.next > limit.cur) await setLimit();
    if (cgroup && request.next > request.cur) await setRequest();
    for (const u of updates[resource]) {
      const values = mixed(resource, u);
      try {
        await updateContainer(deps, pod, u.container, u.id, values, signal);
      } catch (err) {
        deps.log.error("updateContainerResources failed; the next sync retries", { pod: podRef(pod), containerName: u.container.name, containerID: u.id, resourceName: resource, err });
        throw new ResizeError((err as Error).message);
      }
      // What the runtime accepted is now current (the other resource's update builds on it).
      if (resource === "memory") Object.assign(u.current, { memoryLimit: values.memoryLimit, memoryRequest: values.memoryRequest });
      else Object.assign(u.current, { cpuLimit: values.cpuLimit, cpuRequest: values.cpuRequest });
    }
    if (cgroup && request.next < request.cur) await setRequest();
    if (cgroup && limit.next < limit.cur) await setLimit();
  };

  try {
    if (resizeMemory) {
      // An unset pod memory limit stays as it is (the kubelet cannot remove limits in place).
      const next = desired?.memoryLimit ?? current?.memoryLimit ?? 0n;
      await resize("memory", { cur: current?.memoryLimit ?? 0n, next }, { cur: 0n, next: 0n }, () => setPodCgroup({ memoryLimit: next }), async () => undefined);
    }
    if (updates.cpu.length > 0 || changes.updatePodResources === true) {
      const quota = desired?.cpuQuota ?? current?.cpuQuota ?? 0n;
      const shares = desired?.cpuShares ?? current?.cpuShares ?? 0n;
      await resize(
        "cpu",
        { cur: current?.cpuQuota ?? 0n, next: quota },
        { cur: current?.cpuShares ?? 0n, next: shares },
        () => setPodCgroup({ cpuQuota: quota, cpuPeriod: desired?.cpuPeriod }),
        () => setPodCgroup({ cpuShares: shares }),
      );
    }
  } catch (err) {
    if (err instanceof ResizeError) throw err;
    deps.log.error("Failed to set pod cgroup config; the next sync retries", { pod: podRef(pod), err });
    throw new ResizeError((err as Error).message);
  }
}
