import { describe, expect, test } from "bun:test";
import { amountToFree, detectImages, planFreeSpace, planMaxAge, shortfallMessage, type ImageRecord, type RuntimeImage } from "../../../src/imagegc/policy.ts";

const img = (id: string, size: number, pinned = false): RuntimeImage => ({ id, size, tags: [`${id}:latest`], pinned });
const T0 = 1_000_000;

describe("detectImages", () => {
  test("a new image is first detected now; an image in use is last used now; a gone image is forgotten", () => {
    let recs = detectImages(new Map(), [img("a", 1), img("b", 2)], new Set(["a"]), T0);
    expect(recs.get("a")).toMatchObject({ firstDetected: T0, lastUsed: T0 });
    expect(recs.get("b")).toMatchObject({ firstDetected: T0, lastUsed: 0 });
    recs = detectImages(recs, [img("a", 1)], new Set(), T0 + 5);
    expect(recs.get("a")).toMatchObject({ firstDetected: T0, lastUsed: T0 });
    expect(recs.has("b")).toBe(false);
  });
});

describe("amountToFree (GarbageCollect's usage check)", () => {
  const cases: [string, { capacityBytes: number; availableBytes: number }, number, number, number][] = [
    // image_gc_manager_test.go TestGarbageCollectBelowLowThreshold / BelowSuccess: usage 50% → nothing.
    ["below the high threshold: nothing", { capacityBytes: 1000, availableBytes: 500 }, 90, 80, 0],
    // TestGarbageCollectNotEnoughFreed: 95% used, free down to 80%: 1000×20% − 50 = 150.
    ["above the high threshold: down to the low threshold", { capacityBytes: 1000, availableBytes: 50 }, 90, 80, 150],
    ["exactly at the high threshold counts as above", { capacityBytes: 1000, availableBytes: 150 }, 85, 80, 50],
    ["no capacity reported: nothing", { capacityBytes: 0, availableBytes: 0 }, 85, 80, 0],
  ];
  for (const [name, fs, high, low, want] of cases) test(name, () => expect(amountToFree(fs, high, low).bytes).toBe(want));
});

describe("planFreeSpace (freeSpace)", () => {
  const recs = (entries: [string, Partial<ImageRecord>][]) =>
    new Map(entries.map(([id, r]) => [id, { firstDetected: T0, lastUsed: 0, size: 1024, pinned: false, tags: [`${id}:1`], ...r }] as [string, ImageRecord]));

  test("TestFreeSpaceImagesInUseContainersAreIgnored: only the unused image goes", () => {
    const plan = planFreeSpace(recs([["a", {}], ["b", {}]]), new Set(["b"]), 2048, T0, 0);
    expect(plan.remove).toEqual(["a"]);
    expect(plan.freed).toBe(1024);
    expect(plan.kept.inUse).toEqual(["b:1"]);
  });

  test("TestFreeSpaceRemoveByLeastRecentlyUsed: the least recently used goes first, and only as much as needed", () => {
    const plan = planFreeSpace(recs([["new", { lastUsed: T0 + 10 }], ["old", { lastUsed: T0 + 1 }]]), new Set(), 1024, T0 + 20, 0);
    expect(plan.remove).toEqual(["old"]);
  });

  test("TestFreeSpaceTiesBrokenByDetectedTime: same last use, the earlier detected goes first", () => {
    const plan = planFreeSpace(recs([["b", { firstDetected: T0 + 5 }], ["a", { firstDetected: T0 + 1 }]]), new Set(), 1024, T0 + 20, 0);
    expect(plan.remove).toEqual(["a"]);
  });

  test("TestDeleteUnusedImagesRemoveAllUnusedImages: asking for everything removes all unused images", () => {
    const plan = planFreeSpace(recs([["a", {}], ["b", {}], ["c", {}]]), new Set(["c"]), Number.MAX_SAFE_INTEGER, T0, 0);
    expect(plan.remove.sort()).toEqual(["a", "b"]);
  });

  test("TestGarbageCollectImageNotOldEnough: an image younger than imageMinimumGCAge stays, and the shortfall says so", () => {
    const plan = planFreeSpace(recs([["young", { firstDetected: T0 }]]), new Set(), 1024, T0 + 30_000, 60_000);
    expect(plan.remove).toEqual([]);
    expect(plan.kept.tooYoung).toEqual(["young:1"]);
    const later = planFreeSpace(recs([["young", { firstDetected: T0 }]]), new Set(), 1024, T0 + 60_000, 60_000);
    expect(later.remove).toEqual(["young"]);
  });

  test("a pinned (sandbox) image is never removed", () => {
    const plan = planFreeSpace(recs([["pause", { pinned: true }]]), new Set(), 1024, T0 + 1e9, 0);
    expect(plan.remove).toEqual([]);
    expect(plan.kept.pinned).toEqual(["pause:1"]);
  });

  test("the shortfall message keeps the kubelet's words and names what was kept and why (kubernetes#71869)", () => {
    const plan = planFreeSpace(recs([["web", {}], ["pause", { pinned: true }], ["new", { firstDetected: T0 + 10 }]]), new Set(["web"]), 5000, T0 + 20, 60_000);
    expect(shortfallMessage(5000, plan)).toBe(
      "Failed to garbage collect required amount of images. Attempted to free 5000 bytes, but only found 0 bytes eligible to free; " +
        "kept in use: web:1; pinned (sandbox): pause:1; younger than imageMinimumGCAge: new:1",
    );
  });
});

describe("planMaxAge (imageMaximumGCAge)", () => {
  const r = (lastUsed: number, extra: Partial<ImageRecord> = {}): ImageRecord => ({ firstDetected: T0, lastUsed, size: 1, pinned: false, tags: [], ...extra });
  test("TestGarbageCollectImageTooOld: unused longer than the maximum age goes, whatever the disk usage", () => {
    const recs = new Map([
      ["old", r(T0)],
      ["recent", r(T0 + 50_000)],
      ["used", r(T0)],
      ["pinned", r(T0, { pinned: true })],
    ]);
    expect(planMaxAge(recs, new Set(["used"]), T0 + 61_000, 60_000)).toEqual(["old"]);
  });
  test("0 turns it off", () => expect(planMaxAge(new Map([["old", r(0)]]), new Set(), T0 * 10, 0)).toEqual([]));
});
