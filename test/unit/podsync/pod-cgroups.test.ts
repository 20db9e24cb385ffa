import { expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { podCgroupsOf, type PodCgroupManager } from "../../../src/podsync/pod-cgroups.ts";
import { configPod } from "./fakes.ts";

test("no pod cgroups without a container manager or without cgroupsPerQOS", () => {
  expect(podCgroupsOf(undefined, () => [])).toBeUndefined();
  expect(podCgroupsOf({ cgroupsPerQOS: false } as PodCgroupManager, () => [])).toBeUndefined();
});

test("a pod cgroup is made with the active pods as they are at that moment", () => {
  const calls: [string, string[]][] = [];
  let active: Pod[] = [configPod("a")];
  const cm: PodCgroupManager = {
    cgroupsPerQOS: true,
    podCgroupExists: () => false,
    ensurePodCgroup: (pod, pods) => void calls.push([pod.metadata.name ?? "", pods.map((p) => p.metadata.name ?? "")]),
    destroyPodCgroup: () => {},
    cleanupOrphanedPodCgroups: () => {},
  };
  const cgroups = podCgroupsOf(cm, () => active);
  active = [configPod("a"), configPod("b")];
  cgroups?.ensure(configPod("b"));
  expect(calls).toEqual([["b", ["a", "b"]]]);
});
