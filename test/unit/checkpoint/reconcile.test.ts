/**
 * The reconcile decisions when the apiserver answers after a start from the checkpoint: its first
 * list replaces the checkpointed snapshot of source "api", and PodStorage's diff of the two says
 * what happens to each pod. The checkpointed side goes through the real checkpoint (written, read
 * back after a "restart"), so what the checkpoint drops (status, resourceVersion) is in the table.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { createCheckpoint } from "../../../src/checkpoint/checkpoint.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { PodStorage, type PodUpdate } from "../../../src/podconfig/index.ts";
import { makePod } from "../../fixtures/pods.ts";

const root = mkdtempSync(join(tmpdir(), "bunlet-reconcile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function apiPod(name: string, edit?: (p: Pod) => void): Pod {
  const pod = makePod({
    name,
    namespace: "default",
    metadata: { uid: `uid-${name}`, resourceVersion: "10", labels: { app: name } },
    spec: { nodeName: "edge-1", restartPolicy: "Always", containers: [{ name: "c", image: "busybox:1" }] },
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
  });
  edit?.(pod);
  return pod;
}

/** The checkpoint of `before`, read back by a new process, then replaced by the apiserver's `after`. */
function reconcile(before: Pod[], after: Pod[]): string[] {
  const dir = mkdtempSync(join(root, "cp-"));
  const clock = new FakeClock();
  createCheckpoint({ dir, clock, log: silentLogger }).recordPods(before);
  const startPods = createCheckpoint({ dir, clock, log: silentLogger }).startPods ?? [];
  const storage = new PodStorage({ sources: ["api"], clock, log: silentLogger });
  storage.merge("api", startPods);
  const updates: PodUpdate[] = storage.merge("api", after);
  return updates.flatMap((u) => u.pods.map((p) => `${u.op} ${p.metadata.name}`)).sort();
}

describe("the apiserver's first list after a start from the checkpoint", () => {
  test.each([
    ["a pod still bound, unchanged (its status came back): adopted as it runs, status reconciled", [apiPod("web")], [apiPod("web", (p) => (p.metadata.resourceVersion = "12"))], ["RECONCILE web"]],
    ["a pod deleted meanwhile: removed (stopped with its grace period)", [apiPod("web"), apiPod("gone")], [apiPod("web")], ["RECONCILE web", "REMOVE gone"]],
    ["a pod rebound to another node: gone from this node's list, removed", [apiPod("moved")], [], ["REMOVE moved"]],
    ["a pod being deleted (deletionTimestamp): a graceful DELETE", [apiPod("web")], [apiPod("web", (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z"))], ["DELETE web"]],
    ["a changed spec: an UPDATE, applied as the kubelet applies updates", [apiPod("web")], [apiPod("web", (p) => (p.spec.containers[0].image = "busybox:2"))], ["UPDATE web"]],
    ["a changed label: an UPDATE", [apiPod("web")], [apiPod("web", (p) => (p.metadata.labels = { app: "other" }))], ["UPDATE web"]],
    ["a pod bound meanwhile: added", [apiPod("web")], [apiPod("web"), apiPod("new")], ["ADD new", "RECONCILE web"]],
    ["the same pod name with a new UID (recreated): the old one removed, the new one added", [apiPod("web")], [apiPod("web", (p) => (p.metadata.uid = "uid-web-2"))], ["ADD web", "REMOVE web"]],
  ] as const)("%s", (_name, before, after, want) => {
    expect(reconcile([...before], [...after])).toEqual([...want]);
  });
});
