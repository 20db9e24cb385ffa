// The pod cgroup's values (helpers_linux.go ResourceConfigForPod, MilliCPUToShares,
// MilliCPUToQuota), tabled as the kubelet's helpers_linux_test.go does.
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import { podLimits, podRequests } from "../../../src/cm/pod-resources.ts";
import { milliCpuToQuota, milliCpuToShares, resourceConfigForPod, sharesToWeight } from "../../../src/cm/resource-config.ts";
import { makePod } from "../../fixtures/pods.ts";

const opts = { enforceCPULimits: true, cpuPeriodUs: 100_000n };
const Mi = 1024n * 1024n;

function c(name: string, requests?: Record<string, string>, limits?: Record<string, string>, extra: Partial<Container> = {}): Container {
  return { name, image: "busybox", resources: { requests, limits }, ...extra };
}
function pod(containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return makePod({ name: "p", namespace: "default", metadata: { uid: "u1" }, spec: { containers, ...extra } });
}

describe("MilliCPUToShares and MilliCPUToQuota", () => {
  const shares: [bigint, bigint][] = [[0n, 2n], [1n, 2n], [2n, 2n], [10n, 10n], [100n, 102n], [1000n, 1024n], [300_000n, 262144n]];
  for (const [milli, want] of shares) test(`${milli}m → ${want} shares`, () => expect(milliCpuToShares(milli)).toBe(want));
  const quota: [bigint, bigint, bigint][] = [
    [0n, 100_000n, 0n],
    [5n, 100_000n, 1000n],
    [9n, 100_000n, 1000n],
    [10n, 100_000n, 1000n],
    [200n, 100_000n, 20_000n],
    [500n, 100_000n, 50_000n],
    [1000n, 100_000n, 100_000n],
    [1500n, 100_000n, 150_000n],
    [50n, 10_000n, 1000n],
  ];
  for (const [milli, period, want] of quota) test(`${milli}m at ${period}µs → quota ${want}`, () => expect(milliCpuToQuota(milli, period)).toBe(want));
  const weights: [bigint, bigint][] = [[2n, 1n], [1024n, 39n], [262144n, 10000n], [102n, 4n]];
  for (const [s, w] of weights) test(`${s} shares → cpu.weight ${w}`, () => expect(sharesToWeight(s)).toBe(w));
});

describe("ResourceConfigForPod", () => {
  const empty = new Map();
  const cases: [string, Pod, object][] = [
    ["BestEffort: the minimum shares only", pod([c("a")]), { cpuShares: 2n, hugePageLimit: empty }],
    ["Burstable without limits: shares of the requests, no quota, no memory limit",
      pod([c("a", { cpu: "100m", memory: "100Mi" })]), { cpuShares: 102n, hugePageLimit: empty }],
    ["Burstable with every limit: quota and memory from the sum of limits",
      pod([c("a", { cpu: "100m", memory: "100Mi" }, { cpu: "200m", memory: "200Mi" }), c("b", { cpu: "100m" }, { cpu: "300m", memory: "100Mi" })]),
      { cpuShares: 204n, cpuQuota: 50_000n, cpuPeriod: 100_000n, memory: 300n * Mi, hugePageLimit: empty }],
    ["Burstable with one container unlimited: neither quota nor memory limit",
      pod([c("a", { cpu: "100m" }, { cpu: "200m", memory: "200Mi" }), c("b", { cpu: "100m" })]), { cpuShares: 204n, hugePageLimit: empty }],
    ["Burstable with CPU limits only: quota, no memory limit",
      pod([c("a", { cpu: "100m", memory: "1Mi" }, { cpu: "200m" })]), { cpuShares: 102n, cpuQuota: 20_000n, cpuPeriod: 100_000n, hugePageLimit: empty }],
    ["Guaranteed: shares, quota, period and memory",
      pod([c("a", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" })]),
      { cpuShares: 102n, cpuQuota: 10_000n, cpuPeriod: 100_000n, memory: 100n * Mi, hugePageLimit: empty }],
    ["Guaranteed: an init container larger than the sum wins",
      pod([c("a", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" })], {
        initContainers: [c("init", { cpu: "500m", memory: "300Mi" }, { cpu: "500m", memory: "300Mi" })],
      }),
      { cpuShares: 512n, cpuQuota: 50_000n, cpuPeriod: 100_000n, memory: 300n * Mi, hugePageLimit: empty }],
    ["a sidecar counts with the regular containers, and under later init containers",
      pod([c("a", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" })], {
        initContainers: [
          c("side", { cpu: "200m", memory: "50Mi" }, { cpu: "200m", memory: "50Mi" }, { restartPolicy: "Always" }),
          c("init", { cpu: "250m", memory: "50Mi" }, { cpu: "250m", memory: "50Mi" }),
        ],
      }),
      // max(sum 300m/150Mi, init 250m+200m = 450m / 100Mi) per resource.
      { cpuShares: 460n, cpuQuota: 45_000n, cpuPeriod: 100_000n, memory: 150n * Mi, hugePageLimit: empty }],
    ["pod-level resources replace the sums (and decide the QoS class)",
      pod([c("a", { cpu: "100m" }), c("b")], { resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } } }),
      { cpuShares: 1024n, cpuQuota: 100_000n, cpuPeriod: 100_000n, memory: 1024n * Mi, hugePageLimit: empty }],
    ["RuntimeClass overhead adds to requests, and to the limits that are set",
      pod([c("a", { cpu: "100m", memory: "100Mi" }, { cpu: "100m", memory: "100Mi" })], { overhead: { cpu: "10m", memory: "10Mi" } }),
      { cpuShares: 112n, cpuQuota: 11_000n, cpuPeriod: 100_000n, memory: 110n * Mi, hugePageLimit: empty }],
    ["hugepages from the requests",
      pod([c("a", { cpu: "1", memory: "1Gi", "hugepages-2Mi": "4Mi" }, { cpu: "1", memory: "1Gi", "hugepages-2Mi": "4Mi" })]),
      { cpuShares: 1024n, cpuQuota: 100_000n, cpuPeriod: 100_000n, memory: 1024n * Mi, hugePageLimit: new Map([[2n * Mi, 4n * Mi]]) }],
  ];
  for (const [name, p, want] of cases) test(name, () => expect(resourceConfigForPod(p, opts)).toEqual(want as never));

  test("cpuCFSQuota=false leaves CPU limits unenforced: quota -1", () => {
    const p = pod([c("a", { cpu: "100m", memory: "1Mi" }, { cpu: "100m", memory: "1Mi" })]);
    expect(resourceConfigForPod(p, { ...opts, enforceCPULimits: false }).cpuQuota).toBe(-1n);
  });
});

test("PodRequests / PodLimits: every resource by name, cpu in millicores", () => {
  const p = pod([c("a", { cpu: "1.5", memory: "1Gi", "ephemeral-storage": "1Gi" }, { memory: "2Gi" })]);
  expect(podRequests(p)).toEqual(new Map([["cpu", 1500n], ["memory", 1024n * Mi], ["ephemeral-storage", 1024n * Mi]]));
  expect(podLimits(p)).toEqual(new Map([["memory", 2048n * Mi]]));
});
