import { describe, expect, test } from "bun:test";
import { evaluate, initialState, thresholdsMet } from "../../../src/eviction/policy.ts";
import type { Observations } from "../../../src/eviction/signals.ts";
import type { Threshold } from "../../../src/eviction/thresholds.ts";
import { makeSignalObservations } from "../../../src/eviction/signals.ts";

const MI = 1024n * 1024n;
const hardMemory: Threshold = { signal: "memory.available", value: { quantity: 100n * MI }, gracePeriodMs: 0, hard: true };
const softMemory: Threshold = { signal: "memory.available", value: { quantity: 300n * MI }, gracePeriodMs: 30_000, hard: false };
const hardNodefs: Threshold = { signal: "nodefs.available", value: { ppm: 100_000n }, gracePeriodMs: 0, hard: true };
const mem = (available: bigint): Observations => new Map([["memory.available", { available, capacity: 8192n * MI }]]);

describe("thresholdsMet (TestThresholdsMet)", () => {
  const withReclaim: Threshold = { ...hardMemory, minReclaim: { quantity: 500n * MI } };
  const cases: [string, Threshold[], Observations, boolean, Threshold[]][] = [
    ["empty", [], mem(0n), false, []],
    ["threshold-met-memory", [hardMemory], mem(50n * MI), false, [hardMemory]],
    ["threshold-not-met", [hardMemory], mem(500n * MI), false, []],
    ["threshold-met-with-min-reclaim", [withReclaim], mem(150n * MI), true, [withReclaim]],
    ["threshold-not-met-with-min-reclaim", [withReclaim], mem(1024n * MI), true, []],
    ["no observation: not met", [hardNodefs], mem(0n), false, []],
  ];
  for (const [name, t, obs, enforce, want] of cases) test(name, () => expect(thresholdsMet(t, obs, enforce)).toEqual(want));
  test("a percentage of capacity", () => {
    const obs: Observations = new Map([["nodefs.available", { available: 99n, capacity: 1000n }]]);
    expect(thresholdsMet([hardNodefs], obs, false)).toEqual([hardNodefs]);
    obs.set("nodefs.available", { available: 100n, capacity: 1000n });
    expect(thresholdsMet([hardNodefs], obs, false)).toEqual([]);
  });
});

describe("evaluate: grace periods, pressure conditions and the transition period", () => {
  test("a hard threshold acts at once and raises MemoryPressure", () => {
    const r = evaluate([hardMemory], mem(50n * MI), initialState(), 0, 300_000);
    expect(r.actOn).toEqual([hardMemory]);
    expect([...r.conditions]).toEqual(["MemoryPressure"]);
  });

  test("a soft threshold raises the condition at once but acts only after its grace period", () => {
    let r = evaluate([softMemory], mem(200n * MI), initialState(), 0, 300_000);
    expect(r.actOn).toEqual([]);
    expect([...r.conditions]).toEqual(["MemoryPressure"]);
    r = evaluate([softMemory], mem(200n * MI), r.state, 29_999, 300_000);
    expect(r.actOn).toEqual([]);
    r = evaluate([softMemory], mem(200n * MI), r.state, 30_000, 300_000);
    expect(r.actOn).toEqual([softMemory]);
  });

  test("a soft threshold that stops being met restarts its grace period", () => {
    let r = evaluate([softMemory], mem(200n * MI), initialState(), 0, 0);
    r = evaluate([softMemory], mem(400n * MI), r.state, 20_000, 0);
    r = evaluate([softMemory], mem(200n * MI), r.state, 40_000, 0);
    expect(r.actOn).toEqual([]);
  });

  test("the condition stays for evictionPressureTransitionPeriod after the pressure went", () => {
    let r = evaluate([hardMemory], mem(50n * MI), initialState(), 0, 300_000);
    r = evaluate([hardMemory], mem(4096n * MI), r.state, 10_000, 300_000);
    expect(r.actOn).toEqual([]);
    expect([...r.conditions]).toEqual(["MemoryPressure"]);
    r = evaluate([hardMemory], mem(4096n * MI), r.state, 300_000, 300_000);
    expect([...r.conditions]).toEqual([]);
  });

  test("memory goes before disk (byEvictionPriority); disk signals raise DiskPressure", () => {
    const obs: Observations = new Map([...mem(50n * MI), ["nodefs.available", { available: 1n, capacity: 1000n }]]);
    const r = evaluate([hardNodefs, hardMemory], obs, initialState(), 0, 300_000);
    expect(r.actOn.map((t) => t.signal)).toEqual(["memory.available", "nodefs.available"]);
    expect([...r.conditions].sort()).toEqual(["DiskPressure", "MemoryPressure"]);
  });
});

test("makeSignalObservations: memory, nodefs, imagefs (the node's when the runtime reports none), pids", () => {
  const obs = makeSignalObservations({
    memory: { availableBytes: 300n, workingSetBytes: 700n },
    fs: { availableBytes: 10n, capacityBytes: 100n, inodesFree: 5n, inodes: 50n },
    rlimit: { maxpid: 1000n, curproc: 200n },
  });
  expect(Object.fromEntries(obs)).toEqual({
    "memory.available": { available: 300n, capacity: 1000n },
    "nodefs.available": { available: 10n, capacity: 100n },
    "nodefs.inodesFree": { available: 5n, capacity: 50n },
    "imagefs.available": { available: 10n, capacity: 100n },
    "imagefs.inodesFree": { available: 5n, capacity: 50n },
    "pid.available": { available: 800n, capacity: 1000n },
  });
});

test("makeSignalObservations: allocatableMemory.available is kubepods' (the pods system container) limit less its working set", () => {
  const obs = makeSignalObservations({
    memory: { availableBytes: 9000n, workingSetBytes: 1000n },
    systemContainers: [
      { name: "kubelet", memory: { workingSetBytes: 5n } },
      { name: "pods", memory: { availableBytes: 40n, workingSetBytes: 960n } },
    ],
  });
  expect(obs.get("allocatableMemory.available")).toEqual({ available: 40n, capacity: 1000n });
  // Without a limit on kubepods (no availableBytes) there is no observation, so no pressure.
  expect(makeSignalObservations({ systemContainers: [{ name: "pods", memory: { workingSetBytes: 960n } }] }).has("allocatableMemory.available")).toBe(false);
});
