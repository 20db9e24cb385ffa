import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { evictionMessage, rankForEviction, type PodUsage } from "../../../src/eviction/rank.ts";
import { makePod } from "../../fixtures/pods.ts";

const MI = 1024n * 1024n;

function pod(name: string, opts: { memoryRequest?: string; storageRequest?: string; priority?: number } = {}): Pod {
  const requests: Record<string, string> = {};
  if (opts.memoryRequest) requests.memory = opts.memoryRequest;
  if (opts.storageRequest) requests["ephemeral-storage"] = opts.storageRequest;
  return makePod({
    name,
    namespace: "default",
    metadata: { uid: name },
    spec: { priority: opts.priority, containers: [{ name: "c", image: "busybox", resources: Object.keys(requests).length > 0 ? { requests } : {} }] },
  });
}
const memory = (bytes: bigint): PodUsage => ({ memory: { workingSetBytes: bytes }, containers: [{ name: "c", memory: { workingSetBytes: bytes } }] });
const disk = (bytes: bigint): PodUsage => ({ "ephemeral-storage": { usedBytes: bytes }, containers: [{ name: "c", rootfs: { usedBytes: bytes }, logs: { usedBytes: 0n } }] });
const names = (pods: Pod[]) => pods.map((p) => p.metadata.name);

// eviction_manager_test.go / helpers_test.go ranking cases.
describe("rankForEviction, memory.available (rankMemoryPressure)", () => {
  test("TestOrderedByExceedsRequestMemory: a pod above its request goes before one below", () => {
    const below = pod("below-requests", { memoryRequest: "100Mi" });
    const exceeds = pod("exceeds-requests", { memoryRequest: "100Mi" });
    const stats = new Map([["below-requests", memory(99n * MI)], ["exceeds-requests", memory(101n * MI)]]);
    expect(names(rankForEviction("memory.available", [below, exceeds], (u) => stats.get(u)))).toEqual(["exceeds-requests", "below-requests"]);
  });

  test("TestOrderedByPriority: lower priority first when both exceed", () => {
    const stats = new Map([["low", memory(MI)], ["medium", memory(MI)], ["high", memory(MI)]]);
    const pods = [pod("high", { priority: 1 }), pod("medium", { priority: 0 }), pod("low", { priority: -1 })];
    expect(names(rankForEviction("memory.available", pods, (u) => stats.get(u)))).toEqual(["low", "medium", "high"]);
  });

  test("TestOrderedbyMemory: the larger use above the request first", () => {
    const stats = new Map([
      ["best-effort-high", memory(500n * MI)],
      ["best-effort-low", memory(300n * MI)],
      ["burstable-high", memory(800n * MI)],
      ["burstable-low", memory(300n * MI)],
    ]);
    const pods = [pod("best-effort-low"), pod("burstable-low", { memoryRequest: "100Mi" }), pod("best-effort-high"), pod("burstable-high", { memoryRequest: "100Mi" })];
    expect(names(rankForEviction("memory.available", pods, (u) => stats.get(u)))).toEqual(["burstable-high", "best-effort-high", "best-effort-low", "burstable-low"]);
  });

  test("a BestEffort pod goes before a Guaranteed pod within its request, whatever their sizes", () => {
    const stats = new Map([["best-effort", memory(10n * MI)], ["guaranteed", memory(900n * MI)]]);
    const pods = [pod("guaranteed", { memoryRequest: "1Gi" }), pod("best-effort")];
    expect(names(rankForEviction("memory.available", pods, (u) => stats.get(u)))).toEqual(["best-effort", "guaranteed"]);
  });

  test("a pod without stats goes first", () => {
    const stats = new Map([["measured", memory(MI)]]);
    expect(names(rankForEviction("memory.available", [pod("measured"), pod("unmeasured")], (u) => stats.get(u)))).toEqual(["unmeasured", "measured"]);
  });
});

describe("rankForEviction, disk and pids", () => {
  test("TestOrderedByExceedsRequestDisk then by use above the request", () => {
    const stats = new Map([["below", disk(99n * MI)], ["exceeds", disk(101n * MI)], ["big", disk(900n * MI)]]);
    const pods = [pod("below", { storageRequest: "100Mi" }), pod("exceeds", { storageRequest: "100Mi" }), pod("big")];
    expect(names(rankForEviction("nodefs.available", pods, (u) => stats.get(u)))).toEqual(["big", "exceeds", "below"]);
  });
  test("pid.available: priority, then more processes first", () => {
    const stats = new Map<string, PodUsage>([["few", { containers: [], processCount: 2n }], ["many", { containers: [], processCount: 200n }], ["low", { containers: [], processCount: 1n }]]);
    const pods = [pod("few"), pod("many"), pod("low", { priority: -5 })];
    expect(names(rankForEviction("pid.available", pods, (u) => stats.get(u)))).toEqual(["low", "many", "few"]);
  });
});

describe("evictionMessage", () => {
  test("the kubelet's words: resource, threshold and available, each container over its request", () => {
    const p = pod("hog");
    expect(evictionMessage("memory", p, memory(20n * MI), { quantity: "100Mi", available: 51199n * 1024n })).toEqual({
      message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51199Ki. Container c was using 20Mi, request is 0, has larger consumption of memory. ",
      annotations: { offending_containers: "c", offending_containers_usage: "20Mi", starved_resource: "memory" },
    });
  });
  test("a container within its request is not named", () => {
    expect(evictionMessage("memory", pod("ok", { memoryRequest: "1Gi" }), memory(20n * MI))).toEqual({
      message: "The node was low on resource: memory. ",
      annotations: { offending_containers: "", offending_containers_usage: "", starved_resource: "memory" },
    });
    // Without the pod's stats the kubelet adds no annotations.
    expect(evictionMessage("memory", pod("ok"), undefined).annotations).toEqual({});
  });
});
