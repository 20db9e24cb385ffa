import { describe, expect, test } from "bun:test";
import { createPodHandlers } from "../../../src/podsync/handlers.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { SourcesReady } from "../../../src/podsync/sources-ready.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { FakePodWorkers, configPod } from "./fakes.ts";

function harness(ready: boolean) {
  const clock = new FakeClock();
  const podManager = new PodManager(() => clock.now());
  const podWorkers = new FakePodWorkers();
  const sourcesReady = new SourcesReady(() => ready);
  const deletedAll: string[] = [];
  const handlers = createPodHandlers({
    podManager,
    podWorkers,
    sourcesReady,
    deleteAllContainers: (uid) => deletedAll.push(uid),
    clock,
    log: silentLogger,
  });
  return { clock, podManager, podWorkers, handlers, deletedAll };
}

describe("pod handlers", () => {
  test("additions are created oldest first and become desired", () => {
    const h = harness(true);
    h.handlers.handlePodAdditions([
      configPod("new", { created: "2026-01-02T00:00:00Z" }),
      configPod("old", { created: "2025-12-31T00:00:00Z" }),
      configPod("mid", { created: "2026-01-01T00:00:00Z" }),
    ]);
    expect(h.podWorkers.summary()).toEqual(["create:old", "create:mid", "create:new"]);
    expect(h.podWorkers.updates.every((u) => u.startTime === h.clock.now())).toBe(true);
    expect(h.podManager.pods().map((p) => p.metadata.name)).toEqual(["old", "mid", "new"]);
  });

  test("updates replace the desired pod and reach its worker", () => {
    const h = harness(true);
    const pod = configPod("a");
    h.handlers.handlePodAdditions([pod]);
    const changed = { ...pod, metadata: { ...pod.metadata, labels: { x: "y" } } };
    h.handlers.handlePodUpdates([changed]);
    expect(h.podWorkers.summary()).toEqual(["create:a", "update:a"]);
    expect(h.podManager.get("uid-a")).toBe(changed);
  });

  test("a removed pod is killed once all sources are ready", () => {
    const h = harness(true);
    h.handlers.handlePodAdditions([configPod("a")]);
    h.handlers.handlePodRemoves([configPod("a")]);
    expect(h.podWorkers.summary()).toEqual(["create:a", "kill:a"]);
    expect(h.podManager.has("uid-a")).toBe(false);
  });

  test("a removal before all sources are ready kills nothing (housekeeping does, once they are)", () => {
    const h = harness(false);
    h.handlers.handlePodAdditions([configPod("a")]);
    h.handlers.handlePodRemoves([configPod("a")]);
    expect(h.podWorkers.summary()).toEqual(["create:a"]);
    expect(h.podManager.has("uid-a")).toBe(false);
  });

  test("a status-only change updates the desired pod without syncing it", () => {
    const h = harness(true);
    const pod = { ...configPod("a"), status: { phase: "Running" as const } };
    h.handlers.handlePodReconcile([pod]);
    expect(h.podWorkers.updates).toEqual([]);
    expect(h.podManager.get("uid-a")).toBe(pod);
    expect(h.deletedAll).toEqual([]);
  });

  test("a status-only change that moves a readiness gate syncs the pod, so Ready is generated anew", () => {
    const h = harness(true);
    const pod = configPod("a");
    pod.spec.readinessGates = [{ conditionType: "gate1" }];
    const ready = (gate: "True" | "False", readyStatus: "True" | "False") => ({
      ...pod,
      status: {
        phase: "Running" as const,
        conditions: [
          { type: "Ready", status: readyStatus, ...(readyStatus === "False" && { message: 'the status of pod readiness gate "gate1" is not "True", but False' }) },
          { type: "gate1", status: gate },
        ],
        containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "", imageID: "" }],
      },
    });
    h.handlers.handlePodReconcile([ready("False", "False")]);
    expect(h.podWorkers.updates).toEqual([]);
    const flipped = ready("True", "False");
    h.handlers.handlePodReconcile([flipped]);
    expect(h.podWorkers.summary()).toEqual(["sync:a"]);
    expect(h.podWorkers.updates[0]!.pod).toBe(flipped);
    expect(h.podWorkers.updates[0]!.startTime).toBe(h.clock.now());
  });

  test("an evicted pod's containers are all removed on reconcile", () => {
    const h = harness(true);
    h.handlers.handlePodReconcile([{ ...configPod("a"), status: { phase: "Failed", reason: "Evicted" } }]);
    expect(h.deletedAll).toEqual(["uid-a"]);
  });

  test("syncs reach the workers as sync updates", () => {
    const h = harness(true);
    h.handlers.handlePodSyncs([configPod("a"), configPod("b")]);
    expect(h.podWorkers.summary()).toEqual(["sync:a", "sync:b"]);
  });
});

describe("pod manager", () => {
  test("/pods lists desired pods oldest first, each with the status bunlet computed or its own", () => {
    const clock = new FakeClock();
    const pm = new PodManager(() => clock.now());
    pm.upsert(configPod("b", { created: "2026-01-02T00:00:00Z" }));
    pm.upsert({ ...configPod("a", { created: "2026-01-01T00:00:00Z" }), status: { phase: "Pending" } });
    const list = pm.podList((uid) => (uid === "uid-b" ? { phase: "Running" } : undefined));
    expect(list.kind).toBe("PodList");
    expect(list.items.map((p) => [p.metadata.name, p.status?.phase])).toEqual([
      ["a", "Pending"],
      ["b", "Running"],
    ]);
  });

  test("first seen comes from the config.seen annotation, else the time the pod was first added", async () => {
    const clock = new FakeClock();
    const pm = new PodManager(() => clock.now());
    const annotated = configPod("a");
    annotated.metadata.annotations!["kubernetes.io/config.seen"] = "2025-12-31T23:59:59.5Z";
    pm.upsert(annotated);
    pm.upsert(configPod("b"));
    const t0 = clock.now();
    await clock.advance(5000);
    pm.upsert(configPod("b"));
    expect(pm.firstSeen("uid-a")).toBe(Date.parse("2025-12-31T23:59:59.5Z"));
    expect(pm.firstSeen("uid-b")).toBe(t0);
    pm.remove(configPod("b"));
    expect(pm.firstSeen("uid-b")).toBeUndefined();
  });
});
