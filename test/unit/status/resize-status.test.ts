// The status of a resizable pod (kubelet_pods.go convertContainerStatusResources, generateAPIPodStatus,
// status_manager.go SetPodStatus): containerStatuses[].allocatedResources and .resources, the resize
// conditions among the pod's conditions, and observedGeneration on the status and each condition.
import { describe, expect, test } from "bun:test";
import type { Pod, ResourceRequirements } from "../../../src/api/index.ts";
import type { RuntimeContainerStatus } from "../../../src/container/index.ts";
import type { Logger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { generateAPIPodStatus } from "../../../src/status/generate.ts";
import { createStatusManager } from "../../../src/status/manager.ts";
import { createResizeConditions } from "../../../src/status/resize-conditions.ts";
import { iso, rc, runtimeStatus, T0 } from "./runtime.ts";
import { makePod } from "../../fixtures/pods.ts";

const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const Mi = 1024n * 1024n;

function pod(resources: ResourceRequirements, generation = 3): Pod {
  return makePod({ name: "p", namespace: "ns", metadata: { uid: "uid-1", generation }, spec: { containers: [{ name: "app", image: "busybox", resources }] } });
}

/** What containerd reports for a container created with these cgroup values. */
const reported = (shares: bigint, quota: bigint, memory: bigint): RuntimeContainerStatus["resources"] => ({ cpuShares: shares, cpuQuota: quota, cpuPeriod: 100_000n, memoryLimitInBytes: memory });

const statusOf = (p: Pod, c: RuntimeContainerStatus, actuated?: ResourceRequirements) =>
  generateAPIPodStatus(p, runtimeStatus([c]), { podIsTerminal: false, waitingReason: () => undefined, hostIPs: [], now: T0, actuated: () => actuated }).containerStatuses![0]!;

describe("container status resources", () => {
  const allocated: ResourceRequirements = { requests: { cpu: "150m", memory: "96Mi" }, limits: { cpu: "300m", memory: "192Mi" } };

  test("a running container: CPU and memory limit as the runtime reports them, the memory request from the actuated record", () => {
    const s = statusOf(pod(allocated), rc("app", { resources: reported(153n, 30_000n, 192n * Mi) }), allocated);
    expect(s.allocatedResources).toEqual({ cpu: "150m", memory: "96Mi" });
    expect(s.resources).toEqual(allocated);
  });

  test("while a resize is applied the status shows what runs, not the allocation", () => {
    const s = statusOf(pod(allocated), rc("app", { resources: reported(102n, 20_000n, 128n * Mi) }), { requests: { cpu: "100m", memory: "64Mi" } });
    expect(s.allocatedResources).toEqual({ cpu: "150m", memory: "96Mi" });
    expect(s.resources).toEqual({ requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } });
  });

  test("at the cgroup floors the allocated value is kept (1m and 5m cannot be told from 2m and 10m)", () => {
    const tiny: ResourceRequirements = { requests: { cpu: "1m" }, limits: { cpu: "5m" } };
    const s = statusOf(pod(tiny), rc("app", { resources: reported(2n, 1_000n, 0n) }), tiny);
    expect(s.resources).toEqual(tiny);
    expect(s.allocatedResources).toEqual({ cpu: "1m" });
  });

  test("a container that is not running shows its allocation; one without requests has no allocatedResources", () => {
    const s = statusOf(pod({ limits: { memory: "1Gi" } }), rc("app", { state: "exited", exitCode: 1, resources: reported(2n, 0n, 512n * Mi) }));
    expect(s.resources).toEqual({ limits: { memory: "1Gi" } });
    expect(s.allocatedResources).toBeUndefined();
  });

  test("quantities are written in their canonical form (a static pod's 0.5 is 500m)", () => {
    const s = statusOf(pod({ requests: { cpu: "0.5", memory: "1024Mi" } }), rc("app", { state: "exited" }));
    expect(s.allocatedResources).toEqual({ cpu: "500m", memory: "1Gi" });
  });
});

describe("observedGeneration and resize conditions", () => {
  test("the status and every condition carry the pod's generation; resize conditions keep their own", () => {
    const conditions = createResizeConditions(() => T0 - 5_000);
    conditions.setPending("uid-1", "OutOfcpu", "Node didn't have enough resource: cpu, requested: 500, used: 600, capacity: 1000", 2);
    const status = generateAPIPodStatus(pod({}), runtimeStatus([rc("app")]), {
      podIsTerminal: false,
      waitingReason: () => undefined,
      hostIPs: [],
      now: T0,
      resizeConditions: conditions.get("uid-1"),
    });
    expect(status.conditions!.map((c) => [c.type, c.observedGeneration])).toEqual([
      ["PodResizePending", 2],
      ["PodReadyToStartContainers", 3],
      ["Initialized", 3],
      ["Ready", 3],
      ["ContainersReady", 3],
      ["PodScheduled", 3],
    ]);
    expect(status.conditions![0]).toEqual({
      type: "PodResizePending",
      status: "True",
      reason: "Deferred",
      message: "Node didn't have enough resource: cpu, requested: 500, used: 600, capacity: 1000",
      observedGeneration: 2,
      lastProbeTime: iso(T0 - 5_000),
      lastTransitionTime: iso(T0 - 5_000),
    });
    const sm = createStatusManager({ clock: new FakeClock(T0), log });
    const p = pod({});
    // SetPodStatus stamps the generation on any status (a rejected pod's too).
    sm.setPodStatus(p, { ...status, observedGeneration: undefined });
    expect(sm.getPodStatus("uid-1")!.observedGeneration).toBe(3);
    // A late sync of an older generation does not move it back.
    sm.setPodStatus(pod({}, 2), { ...status, phase: "Running" });
    expect(sm.getPodStatus("uid-1")!.observedGeneration).toBe(3);
    // The status manager keeps the resize conditions' times as set.
    expect(sm.getPodStatus("uid-1")!.conditions![0]!.lastTransitionTime).toBe(iso(T0 - 5_000));
  });

  test("PodResizeInProgress keeps the generation it was set at until it is cleared, and an error's reason until a new one", () => {
    const conditions = createResizeConditions(() => T0);
    expect(conditions.setInProgress("uid-1", "", "", 2)).toEqual({ generation: 2, changed: true });
    expect(conditions.setInProgress("uid-1", "", "", 3)).toEqual({ generation: 2, changed: false });
    expect(conditions.setInProgress("uid-1", "Error", "cannot decrease memory limits: x", 3)).toEqual({ generation: 2, changed: true });
    expect(conditions.setInProgress("uid-1", "", "", 3)).toEqual({ generation: 2, changed: false });
    expect(conditions.get("uid-1")[0]).toMatchObject({ reason: "Error", message: "cannot decrease memory limits: x", observedGeneration: 2 });
    expect(conditions.clearInProgress("uid-1")).toBe(2);
    expect(conditions.get("uid-1")).toEqual([]);
    expect(conditions.setPending("uid-1", "Infeasible", "m", 4)).toBe(true);
    expect(conditions.setPending("uid-1", "Infeasible", "m", 4)).toBe(false);
    expect(conditions.isInfeasible("uid-1")).toBe(true);
  });
});
