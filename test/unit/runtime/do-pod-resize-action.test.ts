// doPodResizeAction (upstream's TestDoPodResizeAction, TestValidateMemoryResizeAction): the order
// of pod cgroup and container updates (pod cgroup first when the pod grows, last when it shrinks;
// memory before CPU; limits outside requests), the values UpdateContainerResources gets, the
// actuated record, and the refusal of a memory limit at or below current usage.
import { describe, expect, test } from "bun:test";
import type { Pod, ResourceRequirements } from "../../../src/api/index.ts";
import type { CriClient } from "../../../src/cri/index.ts";
import type { Logger } from "../../../src/lib/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import { doPodResizeAction, ResizeError, type PodCgroupValues } from "../../../src/runtime/resize.ts";
import { makeBasePodAndStatus } from "./fixtures.ts";

const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const Mi = 1024n * 1024n;
const res = (cpuReq: string, cpuLim: string, memReq: string, memLim: string): ResourceRequirements => ({
  requests: { cpu: cpuReq, memory: memReq },
  limits: { cpu: cpuLim, memory: memLim },
});
const base = res("100m", "200m", "100Mi", "200Mi");

function setup(allocation: Record<string, ResourceRequirements>, usage: Record<string, bigint | undefined> = {}, withCgroup = true) {
  const { pod, status } = makeBasePodAndStatus();
  pod.spec.containers = pod.spec.containers.slice(0, 2);
  status.containerStatuses = status.containerStatuses.slice(0, 2);
  for (const c of pod.spec.containers) c.resources = allocation[c.name] ?? base;
  const actuated = new Map<string, ResourceRequirements>(pod.spec.containers.map((c) => [c.name, base]));
  const calls: string[] = [];
  const cri = {
    runtime: {
      updateContainerResources: async (req: { containerId: string; linux: { cpuShares: bigint; cpuQuota: bigint; memoryLimitInBytes: bigint } }) => {
        calls.push(`container ${req.containerId} shares=${req.linux.cpuShares} quota=${req.linux.cpuQuota} mem=${req.linux.memoryLimitInBytes / Mi}Mi`);
        return {};
      },
    },
  } as unknown as CriClient;
  // The pod cgroup's values: the sums of the containers' (both at `base`, 400Mi / 40000 / 204 to start).
  const podCgroup = {
    config: (p: Pod): PodCgroupValues => {
      const sum = (f: (r: ResourceRequirements) => bigint) => p.spec.containers.reduce((a, c) => a + f(c.resources!), 0n);
      const mem = sum((r) => BigInt(String(r.limits!.memory).replace("Mi", "")) * Mi);
      const cpuLim = sum((r) => BigInt(String(r.limits!.cpu).replace("m", "")));
      const cpuReq = sum((r) => BigInt(String(r.requests!.cpu).replace("m", "")));
      return { memoryLimit: mem, cpuQuota: cpuLim * 100n, cpuPeriod: 100000n, cpuShares: (cpuReq * 1024n) / 1000n };
    },
    set: (_p: Pod, v: PodCgroupValues) => void calls.push(`pod ${Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => `${k}=${k === "memoryLimit" ? `${(x as bigint) / Mi}Mi` : x}`).join(" ")}`),
  };
  const deps = {
    cri,
    log,
    cgroupV2: false,
    env: { memoryCapacity: 8 * 1024 * 1024 * 1024 },
    actuated: { get: (_u: string, n: string) => actuated.get(n), setContainer: (_u: string, n: string, r: ResourceRequirements) => void actuated.set(n, r), initializePod: () => undefined },
    podCgroup: withCgroup ? podCgroup : undefined,
  };
  const ids = new Map(status.containerStatuses.map((s) => [s.id, s.name]));
  const memoryUsage = async (id: string) => usage[ids.get(id)!];
  const changes = computePodActions(pod, status, undefined, (_u, n) => actuated.get(n));
  return { run: () => doPodResizeAction(deps, memoryUsage, pod, status, changes), calls, actuated };
}

describe("doPodResizeAction", () => {
  test("growing: the pod cgroup's limit, then its request, then the containers", async () => {
    const s = setup({ foo1: res("200m", "300m", "150Mi", "300Mi") });
    await s.run();
    expect(s.calls).toEqual([
      "pod memoryLimit=500Mi",
      "container id1 shares=102 quota=20000 mem=300Mi",
      "pod cpuQuota=50000 cpuPeriod=100000",
      "pod cpuShares=307",
      "container id1 shares=204 quota=30000 mem=300Mi",
    ]);
    expect(s.actuated.get("foo1")).toEqual({ limits: { cpu: "300m", memory: "300Mi" }, requests: { cpu: "200m", memory: "150Mi" } });
  });

  test("shrinking: the containers, then the pod cgroup's request, then its limit", async () => {
    const s = setup({ foo1: res("50m", "100m", "50Mi", "100Mi") }, { foo1: 10n * Mi, foo2: 10n * Mi });
    await s.run();
    expect(s.calls).toEqual([
      "container id1 shares=102 quota=20000 mem=100Mi",
      "pod memoryLimit=300Mi",
      "container id1 shares=51 quota=10000 mem=100Mi",
      "pod cpuShares=153",
      "pod cpuQuota=30000 cpuPeriod=100000",
    ]);
  });

  test("one container shrinks while another grows: decreases first, the pod cgroup by the net change", async () => {
    const s = setup({ foo1: res("200m", "300m", "100Mi", "200Mi"), foo2: res("50m", "100m", "100Mi", "200Mi") });
    await s.run();
    // CPU: the total quota stays (400m), the total request grows (250m): the pod's shares first.
    expect(s.calls).toEqual(["pod cpuShares=256", "container id2 shares=51 quota=10000 mem=200Mi", "container id1 shares=204 quota=30000 mem=200Mi"]);
  });

  test("without pod cgroups only the containers are resized", async () => {
    const s = setup({ foo1: res("200m", "300m", "150Mi", "300Mi") }, {}, false);
    await s.run();
    expect(s.calls).toEqual(["container id1 shares=102 quota=20000 mem=300Mi", "container id1 shares=204 quota=30000 mem=300Mi"]);
  });

  const refused: { name: string; allocation: Record<string, ResourceRequirements>; usage: Record<string, bigint | undefined>; message: string }[] = [
    {
      name: "a container limit at its usage",
      allocation: { foo1: res("100m", "200m", "50Mi", "50Mi") },
      usage: { foo1: 50n * Mi, foo2: 10n * Mi },
      message: `cannot decrease memory limits: attempting to set container "foo1" memory limit (${50n * Mi}) below current usage (${60n * Mi})`,
    },
    {
      name: "the pod limit below the pod's usage",
      allocation: { foo1: res("100m", "200m", "50Mi", "150Mi") },
      usage: { foo1: 120n * Mi, foo2: 230n * Mi },
      message: `cannot decrease memory limits: attempting to set pod memory limit (${350n * Mi}) below current usage (${350n * Mi})`,
    },
    {
      name: "usage unknown",
      allocation: { foo1: res("100m", "200m", "50Mi", "150Mi") },
      usage: { foo1: undefined, foo2: 10n * Mi },
      message: 'cannot decrease memory limits: [missing pod memory usage, missing container "foo1" memory usage]',
    },
  ];
  for (const c of refused) {
    test(`a memory limit decrease is refused before anything is touched: ${c.name}`, async () => {
      const s = setup(c.allocation, c.usage);
      const err = await s.run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResizeError);
      expect((err as Error).message).toBe(c.message);
      expect(s.calls).toEqual([]);
      expect(s.actuated.get("foo1")).toEqual(base);
    });
  }

  test("a memory limit decrease above usage goes through", async () => {
    const s = setup({ foo1: res("100m", "200m", "50Mi", "150Mi") }, { foo1: 20n * Mi, foo2: 20n * Mi });
    await s.run();
    expect(s.calls).toEqual(["container id1 shares=102 quota=20000 mem=150Mi", "pod memoryLimit=350Mi"]);
  });
});
