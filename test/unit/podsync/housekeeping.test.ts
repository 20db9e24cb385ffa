import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createHousekeeping } from "../../../src/podsync/housekeeping.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { FakePodDirs, FakePodWorkers, FakeRuntime, FakeStatusManager, configPod, runtimePod } from "./fakes.ts";

function harness(podCgroups?: { cleanupOrphaned(keep: ReadonlySet<string>): void }) {
  const clock = new FakeClock();
  const podManager = new PodManager(() => clock.now());
  const podWorkers = new FakePodWorkers();
  const runtime = new FakeRuntime();
  const statusManager = new FakeStatusManager();
  const podDirs = new FakePodDirs();
  const metrics = createMetrics(new Registry());
  const log = createMemoryLogger();
  const hk = createHousekeeping({
    podManager,
    podWorkers,
    runtime,
    statusManager,
    podDirs,
    podCgroups,
    clock,
    log,
    metrics,
  });
  return { clock, podManager, podWorkers, runtime, statusManager, podDirs, metrics, log, hk };
}

describe("housekeeping", () => {
  test("forgets finished workers by telling the workers which pods are desired", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.podWorkers.states.set("uid-a", { state: "SyncPod", orphan: false });
    await h.hk.run(new AbortController().signal);
    expect(h.podWorkers.syncKnownCalls.map((ps) => ps.map((p) => p.metadata.name))).toEqual([["a"]]);
  });

  test("runtime pods no worker knows are killed with a 1 s grace and counted", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.podWorkers.states.set("uid-a", { state: "SyncPod", orphan: false });
    h.podWorkers.states.set("uid-terminating", { state: "TerminatingPod", orphan: true });
    h.runtime.runtimePods = [runtimePod("uid-a", "a"), runtimePod("uid-terminating"), runtimePod("uid-stray")];
    await h.hk.run(new AbortController().signal);
    expect(h.podWorkers.updates).toEqual([
      { updateType: "kill", runningPod: runtimePod("uid-stray"), killPodOptions: { gracePeriodSecondsOverride: 1 } },
    ]);
    expect((await h.metrics.orphanedRuntimePods.get()).values[0].value).toBe(1);
    // Only running pods are candidates (the kubelet's GetPods(false)): dead leftovers are GC's.
    expect(h.runtime.getPodsAll).toEqual([false]);
    // The pod workers hear what runs, so a static pod waits while an old version of it still does.
    expect(h.podWorkers.observedRuntime).toEqual([["uid-a", "uid-terminating", "uid-stray"]]);
  });

  test("a desired pod whose worker was purged (UID reused) is created again, unless it finished", async () => {
    const h = harness();
    h.podManager.upsert(configPod("reused"));
    h.podManager.upsert(configPod("completed"));
    h.podManager.upsert(configPod("terminated"));
    h.statusManager.statuses.set("uid-completed", { phase: "Succeeded" });
    h.podWorkers.knownTerminated.add("uid-terminated");
    await h.hk.run(new AbortController().signal);
    expect(h.podWorkers.summary()).toEqual(["create:reused"]);
  });

  test("orphaned statuses go; directories go unless a desired pod, runtime pod or worker still has them", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.podWorkers.states.set("uid-terminating", { state: "TerminatingPod", orphan: true });
    h.runtime.runtimePods = [runtimePod("uid-running")];
    h.podWorkers.states.set("uid-running", { state: "TerminatingPod", orphan: true });
    for (const uid of ["uid-a", "uid-terminating", "uid-running", "uid-gone", "uid-stuck"]) h.podDirs.dirs.add(uid);
    h.podDirs.stuck.add("uid-stuck");
    h.statusManager.statuses.set("uid-gone", { phase: "Failed" });
    await h.hk.run(new AbortController().signal);
    expect([...h.podDirs.dirs].sort()).toEqual(["uid-a", "uid-running", "uid-stuck", "uid-terminating"]);
    expect(h.statusManager.kept).toEqual([new Set(["uid-a"])]);
    expect(h.statusManager.statuses.has("uid-gone")).toBe(false);
    expect(h.log.lines.some((l) => l.level === "warn" && l.podUID === "uid-stuck")).toBe(true);
  });

  test("when the runtime cannot list pods nothing is killed or removed", async () => {
    const h = harness();
    h.runtime.getPodsError = new Error("unavailable");
    h.podDirs.dirs.add("uid-gone");
    await h.hk.run(new AbortController().signal);
    expect(h.podWorkers.updates).toEqual([]);
    expect(h.podDirs.dirs.has("uid-gone")).toBe(true);
    expect(h.log.lines.some((l) => l.level === "error")).toBe(true);
  });

  test("publishes desired, active, mirror, working and restarted pod counts as the kubelet's HandlePodCleanups", async () => {
    const h = harness();
    const value = async (g: { get(): Promise<{ values: { labels: object; value: number }[] }> }) =>
      Object.fromEntries((await g.get()).values.map((v) => [Object.values(v.labels).join("/"), v.value]));
    h.podManager.upsert(configPod("static-running"));
    h.podManager.upsert(configPod("api-running", { source: "api" }));
    h.podManager.upsert(configPod("api-done", { source: "api" }));
    h.podManager.upsert(configPod("static-reused"));
    h.statusManager.statuses.set("uid-api-done", { phase: "Succeeded" });
    h.podWorkers.states.set("uid-static-running", { state: "SyncPod", orphan: false, static: true });
    h.podWorkers.states.set("uid-api-running", { state: "SyncPod", orphan: false });
    h.podWorkers.states.set("uid-api-done", { state: "TerminatedPod", orphan: false });
    h.runtime.runtimePods = [runtimePod("uid-stray")];
    await h.hk.run(new AbortController().signal);
    expect(await value(h.metrics.desiredPods)).toEqual({ "": 2, true: 2 });
    expect(await value(h.metrics.activePods)).toEqual({ "": 1, true: 2 });
    expect(await value(h.metrics.mirrorPods)).toEqual({ "": 0 });
    expect(await value(h.metrics.restartedPods)).toEqual({ "": 0, true: 1 });
    const working = await value(h.metrics.workingPods);
    expect(Object.keys(working)).toHaveLength(15);
    expect(Object.fromEntries(Object.entries(working).filter(([, n]) => n > 0))).toEqual({
      "sync/desired/true": 2,
      "sync/desired/": 1,
      "terminated/desired/": 1,
      "terminating/runtime_only/unknown": 1,
    });
  });
});

test("pod cgroups are kept for pods that may run: syncing or terminating, running in the runtime, or desired and not finished", async () => {
  const kept: string[][] = [];
  const h = harness({ cleanupOrphaned: (keep) => void kept.push([...keep].sort()) });
  h.podManager.upsert(configPod("desired"));
  h.podManager.upsert(configPod("done"));
  h.podWorkers.states.set("uid-syncing", { state: "SyncPod", orphan: false });
  h.podWorkers.states.set("uid-terminating", { state: "TerminatingPod", orphan: true });
  h.podWorkers.states.set("uid-done", { state: "TerminatedPod", orphan: false });
  h.podWorkers.knownTerminated.add("uid-done");
  h.runtime.runtimePods = [runtimePod("uid-running")];
  await h.hk.run(new AbortController().signal);
  expect(kept).toEqual([["uid-desired", "uid-running", "uid-syncing", "uid-terminating"]]);
});
