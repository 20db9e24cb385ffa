// computePodActions with in-place resize (upstream's TestComputePodActionsForPodResize): a running
// container whose allocation differs from what the runtime was told is updated in place, per
// resource, decreases before increases, or restarted when its resizePolicy says RestartContainer.
import { describe, expect, test } from "bun:test";
import type { Container, ResourceRequirements } from "../../../src/api/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import { makeBasePodAndStatus, makeBasePodAndStatusWithRestartableInitContainers } from "./fixtures.ts";

const res = (cpuReq: string, cpuLim: string, memReq: string, memLim: string): ResourceRequirements => ({
  requests: { cpu: cpuReq, memory: memReq },
  limits: { cpu: cpuLim, memory: memLim },
});
const base = res("100m", "200m", "100Mi", "200Mi");

/** Pod foo with three running containers, all actuated at `base`; the allocation is set per case. */
function setup(allocation: Record<string, ResourceRequirements>, policies: Record<string, Container["resizePolicy"]> = {}) {
  const { pod, status } = makeBasePodAndStatus();
  for (const c of pod.spec.containers) {
    c.resources = allocation[c.name] ?? base;
    if (policies[c.name]) c.resizePolicy = policies[c.name];
  }
  const actuated = (_uid: string, _name: string) => base;
  return { pod, status, actuated };
}

const ids = (list: { id: string }[] | undefined) => (list ?? []).map((u) => u.id);

describe("computePodResizeAction", () => {
  const cases: {
    name: string;
    allocation: Record<string, ResourceRequirements>;
    policies?: Record<string, Container["resizePolicy"]>;
    memory: string[];
    cpu: string[];
    kill?: { id: string; message: string }[];
    start?: number[];
    updatePodResources?: boolean;
  }[] = [
    { name: "allocation equals actuated: nothing to do", allocation: {}, memory: [], cpu: [] },
    { name: "equivalent quantities are no change", allocation: { foo1: res("0.1", "0.2", "104857600", "200Mi") }, memory: [], cpu: [] },
    { name: "cpu increase only", allocation: { foo1: res("150m", "300m", "100Mi", "200Mi") }, memory: [], cpu: ["id1"] },
    { name: "memory increase only", allocation: { foo2: res("100m", "200m", "150Mi", "300Mi") }, memory: ["id2"], cpu: [] },
    { name: "cpu request only (no limit change)", allocation: { foo1: res("150m", "200m", "100Mi", "200Mi") }, memory: [], cpu: ["id1"] },
    {
      name: "decreases go before increases, per resource",
      allocation: { foo1: res("150m", "300m", "150Mi", "300Mi"), foo2: res("50m", "100m", "50Mi", "100Mi"), foo3: res("150m", "300m", "50Mi", "100Mi") },
      memory: ["id3", "id2", "id1"],
      cpu: ["id2", "id1", "id3"],
    },
    {
      name: "RestartContainer for memory: a memory change restarts the container",
      allocation: { foo1: res("100m", "200m", "150Mi", "300Mi") },
      policies: { foo1: [{ resourceName: "memory", restartPolicy: "RestartContainer" }] },
      memory: [],
      cpu: [],
      kill: [{ id: "id1", message: "Container foo1 resize requires restart" }],
      start: [0],
      updatePodResources: true,
    },
    {
      name: "RestartContainer for memory: a CPU-only change is applied in place",
      allocation: { foo1: res("150m", "300m", "100Mi", "200Mi") },
      policies: { foo1: [{ resourceName: "memory", restartPolicy: "RestartContainer" }, { resourceName: "cpu", restartPolicy: "NotRequired" }] },
      memory: [],
      cpu: ["id1"],
    },
    {
      name: "RestartContainer for cpu with both changing: restart, no in-place update",
      allocation: { foo2: res("150m", "300m", "150Mi", "300Mi") },
      policies: { foo2: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }] },
      memory: [],
      cpu: [],
      kill: [{ id: "id2", message: "Container foo2 resize requires restart" }],
      start: [1],
      updatePodResources: true,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { pod, status, actuated } = setup(c.allocation, c.policies);
      const changes = computePodActions(pod, status, undefined, actuated);
      expect(ids(changes.containersToUpdate?.memory)).toEqual(c.memory);
      expect(ids(changes.containersToUpdate?.cpu)).toEqual(c.cpu);
      expect(changes.containersToKill.map((k) => ({ id: k.id, message: k.message }))).toEqual(c.kill ?? []);
      expect(changes.containersToStart).toEqual(c.start ?? []);
      expect(changes.updatePodResources ?? false).toBe(c.updatePodResources ?? false);
      expect(changes.killPod).toBe(false);
    });
  }

  test("an update carries the desired values and shares the current ones between memory and CPU", () => {
    const { pod, status, actuated } = setup({ foo1: res("150m", "300m", "150Mi", "300Mi") });
    const changes = computePodActions(pod, status, undefined, actuated);
    const [mem] = changes.containersToUpdate!.memory;
    const [cpu] = changes.containersToUpdate!.cpu;
    expect(mem.desired).toEqual({ cpuRequest: 150n, cpuLimit: 300n, memoryRequest: 150n * 1024n * 1024n, memoryLimit: 300n * 1024n * 1024n });
    expect(mem.current).toEqual({ cpuRequest: 100n, cpuLimit: 200n, memoryRequest: 100n * 1024n * 1024n, memoryLimit: 200n * 1024n * 1024n });
    expect(cpu.current).toBe(mem.current);
  });

  test("a container not running is not resized: it starts with its allocation", () => {
    const { pod, status, actuated } = setup({ foo1: res("150m", "300m", "100Mi", "200Mi") });
    status.containerStatuses[0]!.state = "exited";
    status.containerStatuses[0]!.exitCode = 1;
    const changes = computePodActions(pod, status, undefined, actuated);
    expect(changes.containersToUpdate).toBeUndefined();
    expect(changes.containersToStart).toEqual([0]);
    // It restarts with resources other than it ran with: the pod cgroup follows.
    expect(changes.updatePodResources).toBe(true);
  });

  test("a running sidecar is resized in place, or restarted under RestartContainer", () => {
    const { pod, status } = makeBasePodAndStatusWithRestartableInitContainers();
    // The regular containers run too.
    status.containerStatuses.push(...makeBasePodAndStatus().status.containerStatuses);
    for (const c of [...pod.spec.initContainers!, ...pod.spec.containers]) c.resources = base;
    pod.spec.initContainers![0]!.resources = res("150m", "300m", "100Mi", "200Mi");
    pod.spec.initContainers![1]!.resources = res("100m", "200m", "150Mi", "300Mi");
    pod.spec.initContainers![1]!.resizePolicy = [{ resourceName: "memory", restartPolicy: "RestartContainer" }];
    const changes = computePodActions(pod, status, undefined, () => base);
    expect(ids(changes.containersToUpdate?.cpu)).toEqual(["initid1"]);
    expect(ids(changes.containersToUpdate?.memory)).toEqual([]);
    expect(changes.containersToKill.map((k) => [k.id, k.message])).toEqual([["initid2", "Container restartable-init-2 resize requires restart"]]);
    expect(changes.initContainersToStart).toEqual([1]);
    expect(changes.containersToStart).toEqual([]);
  });

  test("without the actuated record (no resize support wired) nothing is resized", () => {
    const { pod, status } = setup({ foo1: res("150m", "300m", "100Mi", "200Mi") });
    const changes = computePodActions(pod, status);
    expect(changes.containersToUpdate).toBeUndefined();
    expect(changes.containersToKill).toEqual([]);
  });
});
