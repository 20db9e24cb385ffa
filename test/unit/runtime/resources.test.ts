import { describe, expect, test } from "bun:test";
import type { Container, Pod, ResourceRequirements } from "../../../src/api/index.ts";
import { containerLinuxResources, containerOOMScoreAdjust, milliCpuToQuota, milliCpuToShares } from "../../../src/runtime/resources.ts";
import { makePod } from "../../fixtures/pods.ts";

describe("cgroup CPU values (pkg/kubelet/cm helpers_linux)", () => {
  test.each([
    [0n, 2n],
    [1n, 2n],
    [9n, 9n],
    [100n, 102n],
    [250n, 256n],
    [1000n, 1024n],
    [256000n, 262144n],
    [1_000_000n, 262144n],
  ])("MilliCPUToShares(%d) is %d", (milli, shares) => expect(milliCpuToShares(milli)).toBe(shares));

  // TestMilliCPUToQuota
  test.each([
    [0n, 0n],
    [5n, 1000n],
    [9n, 1000n],
    [10n, 1000n],
    [200n, 20000n],
    [500n, 50000n],
    [1000n, 100000n],
    [1500n, 150000n],
  ])("MilliCPUToQuota(%d) is %d µs", (milli, quota) => expect(milliCpuToQuota(milli)).toBe(quota));
});

describe("a container's Linux resources (calculateLinuxResources)", () => {
  test.each([
    ["cpu 2, memory 1Gi limits", { limits: { cpu: "2", memory: "1Gi" } }, 2048n, 200_000n, 2n ** 30n],
    ["9m is 9 millicores, not 10", { requests: { cpu: "9m" }, limits: { cpu: "9m" } }, 9n, 1000n, 0n],
    ["8.3M is 8300000 bytes", { limits: { memory: "8.3M" } }, 2n, 0n, 8_300_000n],
    ["an explicit zero request keeps the minimum shares", { requests: { cpu: "0" }, limits: { cpu: "1" } }, 2n, 100_000n, 0n],
    ["a request below the limit", { requests: { cpu: "250m" }, limits: { cpu: "0.5", memory: "128Mi" } }, 256n, 50_000n, 134_217_728n],
    ["numbers are quantities too", { limits: { cpu: 1.5, memory: 1e9 } }, 1536n, 150_000n, 1_000_000_000n],
    ["nothing", undefined, 2n, 0n, 0n],
  ] as [string, ResourceRequirements | undefined, bigint, bigint, bigint][])(
    "%s",
    (_name, resources, cpuShares, cpuQuota, memoryLimitInBytes) => {
      expect(containerLinuxResources(resources)).toEqual({ cpuShares, cpuQuota, cpuPeriod: 100_000n, memoryLimitInBytes });
    },
  );
});

describe("OOM score adjustment (pkg/kubelet/qos TestGetContainerOOMScoreAdjust)", () => {
  const standardMemoryAmount = 8_000_000_000;
  const container = (name: string, resources: ResourceRequirements = {}, restartPolicy?: "Always"): Container => ({
    name,
    resources,
    ...(restartPolicy ? { restartPolicy } : {}),
  });
  const pod = (containers: Container[], init: Container[] = [], spec: Partial<Pod["spec"]> = {}): Pod =>
    makePod({ name: "p", spec: { containers, initContainers: init, ...spec } });
  const sampleRequest = String(standardMemoryAmount / 8);
  const sampleLimit = String(1000 + standardMemoryAmount / 8);
  const main = container("main-1", { requests: { memory: sampleRequest }, limits: { memory: sampleLimit } });
  const init = container("init-container", { requests: { memory: sampleRequest }, limits: { memory: sampleLimit } });
  const sidecar = (name: string, request: number) =>
    container(name, { requests: { memory: String(request) }, limits: { memory: sampleLimit } }, "Always");

  const cases: [string, Pod, number, Record<string, number>][] = [
    ["cpu-limit", pod([container("cpu-limit", { limits: { cpu: "10" } })]), 4_000_000_000, { "cpu-limit": 999 }],
    [
      "memory-limit-cpu-request",
      pod([container("m", { requests: { cpu: "0" }, limits: { memory: "10G" } })]),
      standardMemoryAmount,
      { m: 999 },
    ],
    ["zero-memory-limit", pod([container("z", { limits: { memory: "0" } })]), 7_230_457_451, { z: 1000 }],
    ["no-request-limit", pod([container("n")]), 4_000_000_000, { n: 1000 }],
    [
      "equal-request-limit-cpu-memory",
      pod([container("e", { requests: { memory: "10G", cpu: "5m" }, limits: { cpu: "5m", memory: "10G" } })]),
      123_456_789,
      { e: -997 },
    ],
    [
      "cpu-unlimited-memory-limited-with-requests",
      pod([container("c", { requests: { memory: String(standardMemoryAmount / 2), cpu: "5m" }, limits: { memory: "10G" } })]),
      standardMemoryAmount,
      { c: 500 },
    ],
    [
      "request-no-limit",
      pod([container("r", { requests: { memory: String(standardMemoryAmount - 1), cpu: "5m" } })]),
      standardMemoryAmount,
      { r: 3 },
    ],
    [
      "cluster-critical",
      pod([container("c")], [], { priorityClassName: "system-cluster-critical", priority: 2_000_000_000 }),
      4_000_000_000,
      { c: 1000 },
    ],
    [
      "node-critical",
      pod([container("n")], [], { priorityClassName: "system-node-critical", priority: 2_000_001_000 }),
      4_000_000_000,
      { n: -997 },
    ],
    ["burstable-unique-container-pod", pod([main]), standardMemoryAmount, { "main-1": 875 }],
    ["burstable-mixed-unique-main-container-pod", pod([main], [init]), standardMemoryAmount, { "init-container": 875, "main-1": 875 }],
    [
      "burstable-mixed-multi-container-small-sidecar-pod",
      pod([main], [init, sidecar("sidecar-small-container", standardMemoryAmount / 20)]),
      standardMemoryAmount,
      { "init-container": 875, "sidecar-small-container": 875, "main-1": 875 },
    ],
    [
      "burstable-mixed-multi-container-same-request-pod",
      pod([main], [init, sidecar("sidecar-container", standardMemoryAmount / 8)]),
      standardMemoryAmount,
      { "init-container": 875, "sidecar-container": 875, "main-1": 875 },
    ],
    [
      "burstable-mixed-multi-container-big-sidecar-container-pod",
      pod([main], [init, sidecar("sidecar-big-container", standardMemoryAmount / 2)]),
      standardMemoryAmount,
      { "init-container": 875, "sidecar-big-container": 500, "main-1": 875 },
    ],
  ];
  for (const [name, p, capacity, expected] of cases) {
    test(name, () => {
      for (const [containerName, adj] of Object.entries(expected)) {
        const c = [...(p.spec.initContainers ?? []), ...p.spec.containers].find((x) => x.name === containerName)!;
        expect(containerOOMScoreAdjust(p, c, capacity)).toBe(adj);
      }
    });
  }

  test("a static system-node-critical pod is protected like Guaranteed", () => {
    const bestEffort = container("e");
    const p = makePod({ name: "p", metadata: { annotations: { "kubernetes.io/config.source": "file" } }, spec: { containers: [bestEffort], priorityClassName: "system-node-critical" } });
    expect(containerOOMScoreAdjust(p, bestEffort, standardMemoryAmount)).toBe(-997);
  });
});
