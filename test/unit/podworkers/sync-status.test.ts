import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { calculateEffectiveGracePeriod, naturalGracePeriod } from "../../../src/podworkers/sync-status.ts";
import { PodSyncStatus } from "../../../src/podworkers/sync-status.ts";
import { workerPod, makeRuntimePod } from "./helpers.ts";

describe("PodSyncStatus", () => {
  test("mergeLastUpdate keeps the known spec over a runtime pod, the last mirror pod, and accumulated kill options", () => {
    const status = new PodSyncStatus("p_ns", 0);
    const pod = workerPod("a");
    const mirror = workerPod("m");
    status.mergeLastUpdate({ updateType: "create", pod, mirrorPod: mirror });
    status.mergeLastUpdate({ updateType: "kill", runningPod: makeRuntimePod("a"), killPodOptions: { evict: true, gracePeriodSecondsOverride: 5 } });
    expect(status.activeUpdate?.pod).toBe(pod);
    expect(status.activeUpdate?.mirrorPod).toBe(mirror);
    expect(status.activeUpdate?.killPodOptions).toEqual({ evict: true, gracePeriodSecondsOverride: 5 });
    status.mergeLastUpdate({ updateType: "kill", pod, killPodOptions: { gracePeriodSecondsOverride: 2 } });
    expect(status.activeUpdate?.killPodOptions).toEqual({ evict: true, gracePeriodSecondsOverride: 2 });
    expect(status.activeUpdate?.runningPod).toBeUndefined();
  });
});

describe("calculateEffectiveGracePeriod", () => {
  const pod = (spec?: number, deletion?: number): Pod => {
    const p = workerPod("a");
    if (spec !== undefined) p.spec.terminationGracePeriodSeconds = spec;
    if (deletion !== undefined) p.metadata.deletionGracePeriodSeconds = deletion;
    return p;
  };
  const cases: { name: string; current: number; pod: Pod; override?: number; expected: [number, boolean] }[] = [
    { name: "the pod's own grace when nothing else is set", current: 0, pod: pod(30), expected: [30, false] },
    { name: "at least 1 s when the pod has none", current: 0, pod: pod(), expected: [1, false] },
    { name: "a zero grace becomes 1 s", current: 0, pod: pod(0), expected: [1, false] },
    { name: "the deletion grace wins over the spec", current: 0, pod: pod(30, 10), expected: [10, false] },
    { name: "an override shorter than the deletion grace wins", current: 0, pod: pod(30, 10), override: 3, expected: [3, false] },
    { name: "an override of 0 still gives 1 s", current: 0, pod: pod(30), override: 0, expected: [1, false] },
    { name: "an override cannot lengthen the current grace", current: 5, pod: pod(30), override: 20, expected: [5, false] },
    { name: "a shorter override shortens it", current: 5, pod: pod(30), override: 2, expected: [2, true] },
    { name: "the spec does not reset an existing grace", current: 5, pod: pod(30), expected: [5, false] },
    { name: "a later, shorter deletion grace shortens it", current: 20, pod: pod(30, 4), expected: [4, true] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const opts = c.override === undefined ? undefined : { gracePeriodSecondsOverride: c.override };
      const { gracePeriod, shortened } = calculateEffectiveGracePeriod(c.current, c.pod, opts);
      expect([gracePeriod, shortened]).toEqual(c.expected);
    });
  }

  test("naturalGracePeriod falls back to the API default of 30 s", () => {
    expect(naturalGracePeriod(pod())).toBe(30);
    expect(naturalGracePeriod(pod(12))).toBe(12);
    expect(naturalGracePeriod(pod(12, 3))).toBe(3);
    expect(naturalGracePeriod(pod(0))).toBe(1);
  });
});
