import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import {
  containerLinuxResources,
  containerOOMScoreAdjust,
  milliCpuToQuota,
  milliCpuToShares,
  parseQuantity,
  podQOSClass,
} from "../../../src/runtime/resources.ts";

describe("quantities", () => {
  test.each([
    ["250m", 0.25],
    ["1", 1],
    ["1.5", 1.5],
    ["128Mi", 128 * 2 ** 20],
    ["1G", 1e9],
    ["1e3", 1000],
    [2, 2],
  ] as const)("%s is %d", (q, n) => expect(parseQuantity(q)).toBe(n));

  test("a malformed quantity is an error naming it", () => {
    expect(() => parseQuantity("12 apples")).toThrow('invalid resource quantity "12 apples"');
  });
});

describe("cgroup values", () => {
  test.each([
    [0, 2],
    [1, 2],
    [250, 256],
    [1000, 1024],
    [1_000_000, 262144],
  ])("%d millicores are %d shares", (milli, shares) => expect(milliCpuToShares(milli)).toBe(shares));

  test.each([
    [0, 0],
    [5, 1000],
    [500, 50_000],
    [2000, 200_000],
  ])("a %d millicore limit is a %d µs quota", (milli, quota) => expect(milliCpuToQuota(milli)).toBe(quota));

  test("a missing CPU request takes the limit's shares; memory limit in bytes", () => {
    expect(containerLinuxResources({ limits: { cpu: "2", memory: "1Gi" } })).toEqual({
      cpuShares: 2048,
      cpuQuota: 200_000,
      cpuPeriod: 100_000,
      memoryLimitInBytes: 2 ** 30,
    });
    expect(containerLinuxResources(undefined)).toEqual({ cpuShares: 2, cpuQuota: 0, cpuPeriod: 100_000, memoryLimitInBytes: 0 });
  });
});

describe("QoS and OOM score", () => {
  const pod = (...containers: Container[]): Pod => ({ metadata: { name: "p" }, spec: { containers } });
  const guaranteed: Container = { name: "g", resources: { limits: { cpu: "1", memory: "1Gi" } } };
  const burstable: Container = { name: "b", resources: { requests: { memory: "1Gi" } } };
  const bestEffort: Container = { name: "e" };

  test.each([
    ["limits only (requests default to them)", [guaranteed], "Guaranteed"],
    ["a request without limit", [burstable], "Burstable"],
    ["nothing", [bestEffort], "BestEffort"],
    ["mixed", [guaranteed, bestEffort], "Burstable"],
  ] as const)("%s is %s", (_n, containers, qos) => expect(podQOSClass(pod(...containers))).toBe(qos));

  const capacity = 8 * 2 ** 30;
  test.each([
    ["Guaranteed", pod(guaranteed), guaranteed, -997],
    ["BestEffort", pod(bestEffort), bestEffort, 1000],
    ["Burstable with 1/8 of memory", pod(burstable), burstable, 875],
    ["Burstable asking for everything", pod({ name: "x", resources: { requests: { memory: "8Gi" } } }), { name: "x", resources: { requests: { memory: "8Gi" } } }, 3],
    ["Burstable asking for nothing", pod({ name: "y", resources: { requests: { cpu: "1" } } }), { name: "y", resources: { requests: { cpu: "1" } } }, 999],
  ] as const)("%s gets oom_score_adj %d", (_n, p, c, adj) => expect(containerOOMScoreAdjust(p, c, capacity)).toBe(adj));

  test("a static system-node-critical pod is protected like Guaranteed", () => {
    const p: Pod = {
      metadata: { name: "p", annotations: { "kubernetes.io/config.source": "file" } },
      spec: { containers: [bestEffort], priorityClassName: "system-node-critical" },
    };
    expect(containerOOMScoreAdjust(p, bestEffort, capacity)).toBe(-997);
  });
});
