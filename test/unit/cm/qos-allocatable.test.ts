// The QoS tier values (qos_container_manager_linux.go) and node allocatable
// (node_container_manager_linux.go, nodestatus setters.go), tabled.
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import {
  allocatableAbsolute,
  allocatableReservation,
  cgroupConfigFor,
  hardEvictionReservation,
  kubepodsLimits,
  nodeAllocatable,
  reservedAmounts,
  validateNodeAllocatable,
} from "../../../src/cm/allocatable.ts";
import { qosTierValues } from "../../../src/cm/qos.ts";
import { makePod } from "../../fixtures/pods.ts";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;
let n = 0;
function pod(requests?: Record<string, string>, limits?: Record<string, string>): Pod {
  const c: Container = { name: "c", image: "busybox", resources: { requests, limits } };
  return makePod({ name: `p${n}`, namespace: "default", metadata: { uid: `u${n++}` }, spec: { containers: [c] } });
}

describe("QoS tiers", () => {
  const guaranteed = pod({ cpu: "1", memory: "1Gi" }, { cpu: "1", memory: "1Gi" });
  const burstableA = pod({ cpu: "250m", memory: "512Mi" });
  const burstableB = pod({ cpu: "500m" }, { cpu: "1" });
  const besteffort = pod();

  test("besteffort gets the minimum shares; burstable the shares of its pods' CPU requests", () => {
    const v = qosTierValues({ activePods: [guaranteed, burstableA, burstableB, besteffort], allocatableMemory: 0n, hugePageSizes: [] });
    expect(v.besteffort.cpuShares).toBe(2n);
    expect(v.burstable.cpuShares).toBe(768n); // 750m
    expect(v.burstable.memory).toBeUndefined();
  });

  test("with no burstable pod, burstable has the minimum shares too; it follows pods as they come and go", () => {
    expect(qosTierValues({ activePods: [guaranteed, besteffort], allocatableMemory: 0n, hugePageSizes: [] }).burstable.cpuShares).toBe(2n);
    expect(qosTierValues({ activePods: [burstableA], allocatableMemory: 0n, hugePageSizes: [] }).burstable.cpuShares).toBe(256n);
  });

  test("qosReserved memory: burstable = allocatable − N% of Guaranteed requests, besteffort − N% of Burstable's too", () => {
    const v = qosTierValues({ activePods: [guaranteed, burstableA, besteffort], allocatableMemory: 4n * Gi, memoryReservePercent: 50n, hugePageSizes: [] });
    expect(v.burstable.memory).toBe(4n * Gi - Gi / 2n);
    expect(v.besteffort.memory).toBe(4n * Gi - Gi / 2n - 256n * Mi);
  });

  test("qosReserved with allocatable unknown (0) sets no memory limits, as the kubelet", () => {
    expect(qosTierValues({ activePods: [guaranteed], allocatableMemory: 0n, memoryReservePercent: 50n, hugePageSizes: [] }).burstable.memory).toBeUndefined();
  });

  test("every hugepage size the host has is unbounded on the tiers", () => {
    const v = qosTierValues({ activePods: [], allocatableMemory: 0n, hugePageSizes: [2n * Mi, Gi] });
    expect(v.burstable.hugePageLimit).toEqual(new Map([[2n * Mi, (1n << 63n) - 1n], [Gi, (1n << 63n) - 1n]]));
  });
});

describe("node allocatable", () => {
  const capacity = new Map([
    ["cpu", 4000n],
    ["memory", 8n * Gi],
    ["ephemeral-storage", 100n * Gi],
    ["pods", 110n],
    ["hugepages-2Mi", 512n * Mi],
  ]);
  const config = {
    kubeReserved: { cpu: "100m", memory: "256Mi", pid: "1000" },
    systemReserved: { cpu: "200m", memory: "512Mi", "ephemeral-storage": "1Gi" },
    hardEviction: [
      { signal: "memory.available", quantity: 100n * Mi },
      { signal: "nodefs.available", percentage: Math.fround(0.1) },
      { signal: "imagefs.available", percentage: Math.fround(0.15) },
    ],
  };

  test("the reservation sums kubeReserved, systemReserved and the hard eviction thresholds, per resource of the capacity", () => {
    expect(allocatableReservation(capacity, config)).toEqual(
      new Map([
        ["cpu", 300n],
        ["memory", 256n * Mi + 512n * Mi + 100n * Mi],
        // Go's float32 10%: 0.100000001490116… of the capacity, truncated.
        ["ephemeral-storage", Gi + 10737418400n],
      ]),
    );
  });

  test("a percentage is taken of the capacity as Go takes it (float32 times float64)", () => {
    expect(hardEvictionReservation([{ signal: "memory.available", percentage: Math.fround(0.05) }], new Map([["memory", 1000n]]))).toEqual(new Map([["memory", 50n]]));
  });

  test("allocatable is the capacity less the reservation, memory less the hugepages too, never below 0", () => {
    const reservation = allocatableReservation(capacity, config);
    const a = nodeAllocatable(capacity, reservation);
    expect(a.get("cpu")).toBe(3700n);
    expect(a.get("memory")).toBe(8n * Gi - 868n * Mi - 512n * Mi);
    expect(a.get("pods")).toBe(110n);
    expect(a.get("hugepages-2Mi")).toBe(512n * Mi);
    expect(nodeAllocatable(new Map([["cpu", 100n]]), new Map([["cpu", 500n]])).get("cpu")).toBe(0n);
  });

  test("kubepods is limited to the capacity less kubeReserved and systemReserved only (eviction is the eviction manager's)", () => {
    const internal = new Map([...capacity, ["pid", 32768n]]);
    const rc = cgroupConfigFor(allocatableAbsolute(internal, config));
    expect(rc).toEqual({ cpuShares: 3788n, memory: 8n * Gi - 768n * Mi, pidsLimit: 31768n, hugePageLimit: new Map([[2n * Mi, 512n * Mi]]) });
  });

  test("kubepods' limits: the capacity with pid_max, less the reservations only when cgroupsPerQOS and enforceNodeAllocatable has pods; never the pods count", () => {
    const enforcePods = { cgroupsPerQOS: true, enforceNodeAllocatable: new Set(["pods"]) };
    const limited = kubepodsLimits(capacity, "32768\n", config, enforcePods);
    expect(limited.get("cpu")).toBe(3700n);
    expect(limited.get("memory")).toBe(8n * Gi - 768n * Mi);
    expect(limited.get("pid")).toBe(31768n);
    expect(limited.has("pods")).toBe(false);
    const cases: [string, string, { cgroupsPerQOS: boolean; enforceNodeAllocatable: Set<string> }][] = [
      ["enforceNodeAllocatable without pods", "32768", { cgroupsPerQOS: true, enforceNodeAllocatable: new Set(["system-reserved"]) }],
      ["cgroupsPerQOS off", "32768", { cgroupsPerQOS: false, enforceNodeAllocatable: new Set(["pods"]) }],
    ];
    for (const [, pidMax, enforcement] of cases) {
      const whole = kubepodsLimits(capacity, pidMax, config, enforcement);
      expect([whole.get("cpu"), whole.get("memory"), whole.get("pid"), whole.has("pods")]).toEqual([capacity.get("cpu"), capacity.get("memory"), 32768n, false]);
    }
    expect(kubepodsLimits(capacity, "", config, enforcePods).has("pid")).toBe(false);
    expect(capacity.has("pods")).toBe(true);
  });

  test("the compressible form limits only CPU", () => {
    expect(cgroupConfigFor(reservedAmounts({ cpu: "500m", memory: "1Gi" }), true)).toEqual({ cpuShares: 512n });
  });

  test("a reservation beyond the capacity is refused in the kubelet's words", () => {
    const msg = validateNodeAllocatable(new Map([["memory", 1000n]]), new Map([["memory", 2000n]]), (_n, v) => String(v));
    expect(msg).toBe('invalid Node Allocatable configuration. Resource "memory" has a reservation of 2000 but capacity of 1000. Expected capacity >= reservation.');
    expect(validateNodeAllocatable(capacity, new Map([["cpu", 100n]]), String)).toBeUndefined();
  });
});
