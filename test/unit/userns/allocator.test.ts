// The range allocator against the kubelet's rules (userns_manager_test.go: TestMakeUserNsManager,
// TestUserNsManagerAllocate, record's refusals).
import { describe, expect, test } from "bun:test";
import { RangeAllocator, UsernsAllocationError, UsernsConfigError } from "../../../src/userns/allocator.ts";
import { defaultMappings } from "../../../src/userns/kubelet-mappings.ts";

const first = () => 0;

describe("the node's IDs are cut into pod ranges as MakeUserNsManager allows", () => {
  const cases: { name: string; firstId: number; length: number; idsPerPod?: number; maxPods: number; err?: string }[] = [
    { name: "the default range for 110 pods", ...defaultMappings(65536), maxPods: 110 },
    { name: "a subuid range of exactly maxPods ranges", firstId: 65536, length: 65536 * 110, maxPods: 110 },
    { name: "idsPerPod 131072 on the default range", ...defaultMappings(131072), idsPerPod: 131072, maxPods: 110 },
    { name: "first ID not a multiple of idsPerPod", firstId: 65537, length: 65536 * 200, maxPods: 110, err: "kubelet user assigned ID 65537 is not a multiple of 65536" },
    { name: "first ID below idsPerPod (host root would be mapped)", firstId: 0, length: 65536 * 200, maxPods: 110, err: "kubelet user assigned ID 0 must be greater or equal to 65536" },
    { name: "length not a multiple of idsPerPod", firstId: 65536, length: 65537, maxPods: 1, err: "kubelet user assigned IDs length 65537 is not a multiple of 65536" },
    { name: "too few ranges for maxPods", firstId: 65536, length: 65536, maxPods: 2, err: "kubelet user assigned IDs are not enough to support 2 pods" },
    { name: "idsPerPod not a multiple of 65536", firstId: 100000, length: 100000 * 200, idsPerPod: 100000, maxPods: 110, err: "kubelet user namespace length 100000 is not a multiple of 65536" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const make = () => new RangeAllocator({ firstId: c.firstId, length: c.length, idsPerPod: c.idsPerPod ?? 65536, maxPods: c.maxPods, random: first });
      if (c.err) {
        expect(make).toThrow(UsernsConfigError);
        expect(make).toThrow(c.err);
      } else expect(make().uids()).toEqual([]);
    });
  }
});

describe("allocation", () => {
  test("two pods get disjoint ranges of idsPerPod, never host ID 0", () => {
    for (const idsPerPod of [65536, 131072]) {
      const a = new RangeAllocator({ ...defaultMappings(idsPerPod), idsPerPod, maxPods: 110, random: first });
      const one = a.allocate("one");
      const two = a.allocate("two");
      expect(one).toEqual({ hostId: idsPerPod, length: idsPerPod });
      expect(two).toEqual({ hostId: 2 * idsPerPod, length: idsPerPod });
      expect(one.hostId + one.length).toBeLessThanOrEqual(two.hostId);
    }
  });

  test("the scan starts at the random slot and wraps around past taken ones", () => {
    // Four slots at 65536..: random 0.99 starts at the last one.
    const a = new RangeAllocator({ firstId: 65536, length: 4 * 65536, idsPerPod: 65536, maxPods: 4, random: () => 0.99 });
    expect(a.allocate("a").hostId).toBe(4 * 65536);
    expect(a.allocate("b").hostId).toBe(65536);
    expect(a.allocate("c").hostId).toBe(2 * 65536);
    expect(a.allocate("d").hostId).toBe(3 * 65536);
    expect(() => a.allocate("e")).toThrow("could not find an empty slot to allocate a user namespace");
  });

  test("every slot of a full node is used once, and a released one is given again", () => {
    const a = new RangeAllocator({ firstId: 65536, length: 110 * 65536, idsPerPod: 65536, maxPods: 110, random: Math.random });
    const seen = new Set<number>();
    for (let i = 0; i < 110; i++) seen.add(a.allocate(`pod-${i}`).hostId);
    expect(seen.size).toBe(110);
    expect(() => a.allocate("one-too-many")).toThrow(UsernsAllocationError);
    const freed = a.get("pod-7")!;
    expect(a.release("pod-7")).toBe(true);
    expect(a.release("pod-7")).toBe(false);
    expect(a.allocate("new").hostId).toBe(freed);
  });
});

describe("record (a range read back from a pod's file)", () => {
  const make = () => new RangeAllocator({ firstId: 65536, length: 10 * 65536, idsPerPod: 65536, maxPods: 10, random: first });
  const cases: { name: string; pre?: [string, number][]; uid: string; from: number; length: number; err?: string }[] = [
    { name: "a free range", uid: "a", from: 131072, length: 65536 },
    { name: "the same range again (a second sync)", pre: [["a", 131072]], uid: "a", from: 131072, length: 65536 },
    { name: "another length", uid: "a", from: 131072, length: 131072, err: "wrong user namespace length 131072" },
    { name: "an offset inside a range", uid: "a", from: 131073, length: 65536, err: "wrong user namespace offset specified 131073" },
    { name: "a different range for the same pod", pre: [["a", 131072]], uid: "a", from: 196608, length: 65536, err: 'different user namespace range already used by pod "a"' },
    { name: "below the node's IDs", uid: "a", from: 0, length: 65536, err: "id 0 is out of range" },
    { name: "past the node's IDs", uid: "a", from: 11 * 65536, length: 65536, err: `id ${11 * 65536} is out of range` },
    { name: "another pod's range", pre: [["b", 131072]], uid: "a", from: 131072, length: 65536, err: 'range picked for pod "a" already taken' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const a = make();
      for (const [uid, from] of c.pre ?? []) a.record(uid, from, 65536);
      const run = () => a.record(c.uid, c.from, c.length);
      if (c.err) expect(run).toThrow(c.err);
      else {
        run();
        expect(a.get(c.uid)).toBe(c.from);
      }
    });
  }

  test("a recorded range is never allocated to another pod", () => {
    const a = new RangeAllocator({ firstId: 65536, length: 2 * 65536, idsPerPod: 65536, maxPods: 2, random: first });
    a.record("old", 65536, 65536);
    expect(a.allocate("new").hostId).toBe(131072);
  });
});
