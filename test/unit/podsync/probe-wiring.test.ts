// Where the agent meets the prober: the sync loop syncs a pod on probe updates, the pod syncer
// starts and stops its probe workers, housekeeping stops the workers of pods that cannot run.
import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import type { Pod } from "../../../src/api/index.ts";
import type { PodHandlers } from "../../../src/podsync/handlers.ts";
import { createHousekeeping } from "../../../src/podsync/housekeeping.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { createPodSyncer } from "../../../src/podsync/pod-syncer.ts";
import { SourcesReady } from "../../../src/podsync/sources-ready.ts";
import { runSyncLoop, SyncLoopMonitor } from "../../../src/podsync/sync-loop.ts";
import type { PodUpdate } from "../../../src/podconfig/index.ts";
import { Channel, silentLogger } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import type { PodLifecycleEvent } from "../../../src/pleg/index.ts";
import type { ProbeType, ProbeUpdate } from "../../../src/prober/index.ts";
import { container, statusGenerator, FakePodDirs, FakePodWorkers, FakeRuntime, FakeStatusManager, configPod, podStatus } from "./fakes.ts";

/** Records what the agent asked of the probe manager. */
class RecordingProbeManager {
  readonly calls: string[] = [];
  addPod = (pod: Pod) => void this.calls.push(`add:${pod.metadata.uid}`);
  stopLivenessAndStartup = (uid: string) => void this.calls.push(`stopLivenessAndStartup:${uid}`);
  removePod = (uid: string) => void this.calls.push(`remove:${uid}`);
  cleanupPods = (desired: Iterable<string>) => void this.calls.push(`cleanup:${[...desired].sort().join(",")}`);
}

describe("sync loop dispatch of probe updates", () => {
  function loop() {
    const clock = new FakeClock();
    const synced: string[] = [];
    const handlers: PodHandlers = {
      handlePodAdditions: () => undefined,
      handlePodUpdates: () => undefined,
      handlePodRemoves: () => undefined,
      handlePodReconcile: () => undefined,
      handlePodSyncs: (pods) => void synced.push(...pods.map((p) => p.metadata.name!)),
    };
    const podManager = new PodManager(() => clock.now());
    podManager.upsert(configPod("a"));
    const probeUpdates = { liveness: new Channel<ProbeUpdate>(10), readiness: new Channel<ProbeUpdate>(10), startup: new Channel<ProbeUpdate>(10) };
    const ac = new AbortController();
    const done = runSyncLoop(
      {
        updates: new Channel<PodUpdate>(1),
        pleg: new Channel<PodLifecycleEvent>(1),
        probeUpdates,
        sourcesReady: new SourcesReady(() => true),
        handlers,
        podManager,
        workQueue: { getWork: () => [] },
        housekeeping: { run: async () => undefined },
        containerDeletor: { deleteContainersInPod: () => true },
        shouldPodContentBeRemoved: () => false,
        runtimeError: () => undefined,
        monitor: new SyncLoopMonitor(),
        clock,
        log: silentLogger,
      },
      ac.signal,
    );
    const send = async (probe: ProbeType, result: ProbeUpdate["result"], podUID = "uid-a") => {
      probeUpdates[probe].trySend({ podUID, containerId: "id1", containerName: "c", result });
      await flushMicrotasks(50);
    };
    return { synced, send, stop: () => (ac.abort(), done) };
  }

  const cases: [ProbeType, ProbeUpdate["result"], boolean][] = [
    ["liveness", "Failure", true],
    ["liveness", "Success", false],
    ["readiness", "Success", true],
    ["readiness", "Failure", true],
    ["startup", "Success", true],
    ["startup", "Failure", true],
  ];
  for (const [probe, result, syncs] of cases) {
    test(`a ${probe} ${result} ${syncs ? "syncs the pod" : "changes nothing"}`, async () => {
      const l = loop();
      await l.send(probe, result);
      expect(l.synced).toEqual(syncs ? ["a"] : []);
      await l.stop();
    });
  }

  test("an update for a pod the config no longer has is ignored", async () => {
    const l = loop();
    await l.send("liveness", "Failure", "uid-gone");
    expect(l.synced).toEqual([]);
    await l.stop();
  });
});

describe("pod syncer and housekeeping drive the probe workers", () => {
  function syncer(probeManager: RecordingProbeManager) {
    const clock = new FakeClock();
    const statusManager = new FakeStatusManager();
    return createPodSyncer({
      runtime: new FakeRuntime(),
      statusManager,
      generateStatus: statusGenerator(statusManager),
      podDirs: new FakePodDirs(),
      podManager: new PodManager(() => clock.now()),
      probeManager,
      isTerminationRequested: () => false,
      networkNotReady: () => undefined,
      recorder: { event: () => undefined },
      mountVolumes: async () => {},
      unmountVolumes: async () => {},
      requestPodRelist: () => {},
      clock,
      log: createMemoryLogger(),
      metrics: createMetrics(new Registry()),
    });
  }
  const signal = new AbortController().signal;

  test("syncPod starts the pod's probe workers; a terminating or terminal pod gets none", async () => {
    const pm = new RecordingProbeManager();
    const s = syncer(pm);
    await s.syncPod(signal, "create", configPod("a"), undefined, podStatus("uid-a", [container("c", "running")]));
    await s.syncPod(signal, "sync", configPod("b", { deleting: true }), undefined, podStatus("uid-b"));
    await s.syncPod(signal, "sync", configPod("c", { restartPolicy: "Never" }), undefined, podStatus("uid-c", [{ ...container("c", "exited"), exitCode: 0 }]));
    expect(pm.calls).toEqual(["add:uid-a"]);
  });

  test("syncTerminatingPod stops liveness and startup first and every probe once the containers stopped", async () => {
    const pm = new RecordingProbeManager();
    await syncer(pm).syncTerminatingPod(signal, configPod("a"), podStatus("uid-a", [container("c", "running")]), 2);
    expect(pm.calls).toEqual(["stopLivenessAndStartup:uid-a", "remove:uid-a"]);
  });

  test("housekeeping keeps probing only pods whose worker syncs or terminates them", async () => {
    const clock = new FakeClock();
    const pm = new RecordingProbeManager();
    const podWorkers = new FakePodWorkers();
    podWorkers.states.set("uid-a", { state: "SyncPod", orphan: false });
    podWorkers.states.set("uid-b", { state: "TerminatingPod", orphan: false });
    podWorkers.states.set("uid-c", { state: "TerminatedPod", orphan: false });
    const hk = createHousekeeping({
      podManager: new PodManager(() => clock.now()),
      podWorkers,
      runtime: new FakeRuntime(),
      statusManager: new FakeStatusManager(),
      podDirs: new FakePodDirs(),
      probeManager: pm,
      clock,
      log: createMemoryLogger(),
      metrics: createMetrics(new Registry()),
    });
    await hk.run(new AbortController().signal);
    expect(pm.calls).toEqual(["cleanup:uid-a,uid-b"]);
  });
});
