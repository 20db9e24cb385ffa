import { describe, expect, test } from "bun:test";
import type { Pod, PodCondition, PodStatus } from "../../../src/api/index.ts";
import { canBeDeleted, makeStatusPatch, mergePodStatus } from "../../../src/status/patch.ts";
import { makePod } from "../../fixtures/pods.ts";

const cond = (type: string, status: "True" | "False", extra: Partial<PodCondition> = {}): PodCondition => ({ type, status, ...extra });

describe("mergePodStatus (status_manager.go mergePodStatus)", () => {
  const cases: { name: string; old: PodStatus; next: PodStatus; running: boolean; want: PodStatus }[] = [
    {
      name: "another owner's condition survives; the kubelet's replace the apiserver's",
      old: { phase: "Pending", conditions: [cond("PodScheduled", "True"), cond("example.com/Gate", "False"), cond("Ready", "False")] },
      next: { phase: "Running", conditions: [cond("Ready", "True"), cond("PodScheduled", "True")] },
      running: true,
      want: { phase: "Running", conditions: [cond("example.com/Gate", "False"), cond("Ready", "True"), cond("PodScheduled", "True")] },
    },
    {
      name: "a pod that could still run containers does not go terminal yet",
      old: { phase: "Running", reason: undefined, conditions: [] },
      next: { phase: "Failed", reason: "Evicted", message: "gone", conditions: [] },
      running: true,
      want: { phase: "Running", conditions: [] },
    },
    {
      name: "a finished pod goes terminal with its reason",
      old: { phase: "Running", conditions: [] },
      next: { phase: "Failed", reason: "Evicted", message: "gone", conditions: [] },
      running: false,
      want: { phase: "Failed", reason: "Evicted", message: "gone", conditions: [] },
    },
    {
      name: "the scheduler's nominatedNodeName is not the kubelet's to change",
      old: { phase: "Pending", nominatedNodeName: "n1" } as PodStatus,
      next: { phase: "Running" },
      running: true,
      want: { phase: "Running", nominatedNodeName: "n1", conditions: [] } as PodStatus,
    },
    {
      name: "DisruptionTarget is sent only with the terminal phase, once nothing runs",
      old: { phase: "Running", conditions: [] },
      next: { phase: "Failed", conditions: [cond("DisruptionTarget", "True", { reason: "TerminationByKubelet" })] },
      running: false,
      want: { phase: "Failed", conditions: [cond("DisruptionTarget", "True", { reason: "TerminationByKubelet" })] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(mergePodStatus(c.old, c.next, c.running)).toEqual(c.want);
    });
  }
});

describe("makeStatusPatch (statusutil.PatchPodStatus's two-way strategic merge patch)", () => {
  test("nothing changed: no patch", () => {
    const s: PodStatus = { phase: "Running", podIP: "10.0.0.2", conditions: [cond("Ready", "True")] };
    expect(makeStatusPatch("u1", s, structuredClone(s))).toBeUndefined();
  });

  test("the apiserver's key order is not a change (its JSON follows Go's field order, not bunlet's)", () => {
    const ours: PodStatus = {
      phase: "Running",
      containerStatuses: [{ name: "c", state: { running: { startedAt: "2026-01-01T00:00:00Z" } }, ready: true, restartCount: 0, image: "busybox:1.36", imageID: "sha256:1", containerID: "containerd://a", started: true }],
    };
    const theirs: PodStatus = {
      containerStatuses: [{ containerID: "containerd://a", image: "busybox:1.36", imageID: "sha256:1", name: "c", ready: true, restartCount: 0, started: true, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } }],
      phase: "Running",
    };
    expect(makeStatusPatch("u1", theirs, ours)).toBeUndefined();
  });

  test("changed fields are set, vanished ones are null, the UID is the precondition", () => {
    const patch = makeStatusPatch("u1", { phase: "Pending", message: "waiting" }, { phase: "Running", podIP: "10.0.0.2" });
    expect(patch).toEqual({ metadata: { uid: "u1" }, status: { phase: "Running", message: null, podIP: "10.0.0.2" } });
  });

  test("conditions merge by type: only changes are sent, a dropped kubelet condition is deleted, others untouched", () => {
    const old: PodStatus = { conditions: [cond("PodScheduled", "True"), cond("Ready", "False", { reason: "ContainersNotReady" }), cond("Initialized", "True")] };
    const next: PodStatus = { conditions: [cond("PodScheduled", "True"), cond("Ready", "True")] };
    expect(makeStatusPatch("u1", old, next)).toEqual({
      metadata: { uid: "u1" },
      status: {
        conditions: [{ type: "Ready", status: "True", reason: null }, { type: "Initialized", $patch: "delete" }],
        "$setElementOrder/conditions": [{ type: "PodScheduled" }, { type: "Ready" }],
      },
    });
  });

  test("podIPs (merged by ip) are replaced whole when they change", () => {
    const patch = makeStatusPatch("u1", { podIPs: [{ ip: "10.0.0.2" }] }, { podIPs: [{ ip: "10.0.0.3" }] });
    expect(patch).toEqual({ metadata: { uid: "u1" }, status: { podIPs: [{ $patch: "replace" }, { ip: "10.0.0.3" }] } });
  });
});

describe("canBeDeleted", () => {
  const pod = (meta: Partial<Pod["metadata"]>, phase: PodStatus["phase"]): Pod => makePod({ name: "p", namespace: "d", metadata: { uid: "u", ...meta }, status: { phase } });
  const cases: [string, Pod, boolean, boolean][] = [
    ["not being deleted", pod({}, "Failed"), true, false],
    ["being deleted, terminal in the apiserver, finished", pod({ deletionTimestamp: "2026-01-01T00:00:00Z" }, "Failed"), true, true],
    ["being deleted but not finished here", pod({ deletionTimestamp: "2026-01-01T00:00:00Z" }, "Failed"), false, false],
    ["being deleted, finished, but the apiserver's phase is not terminal yet", pod({ deletionTimestamp: "2026-01-01T00:00:00Z" }, "Running"), true, false],
    ["a mirror pod", pod({ deletionTimestamp: "2026-01-01T00:00:00Z", annotations: { "kubernetes.io/config.mirror": "h" } }, "Succeeded"), true, false],
  ];
  for (const [name, p, finished, want] of cases) test(name, () => expect(canBeDeleted(p, finished)).toBe(want));
});
