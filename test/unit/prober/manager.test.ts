import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createProbeManager } from "../../../src/prober/index.ts";
import { ResultsManager, parseContainerId } from "../../../src/prober/results.ts";
import { containerStatus, FakeProvider, log, probedPod, newClock, podStatus, probe, ScriptedChecker, START, UID } from "./fixtures.ts";

/** A manager on the test clock: its start time is the clock's now. */
/** By default the container started 5 s before the manager: a new one, not one a restart found running. */
function setupOnClock(pod: Pod, status = podStatus(containerStatus("id1", "running", START - 5_000)), random = 0) {
  const clock = newClock();
  const provider = new FakeProvider(pod, status);
  const checker = new ScriptedChecker();
  const pm = createProbeManager({ cri: { runtime: {} as never }, clock, random: () => random, log, metrics: createMetrics(), statusProvider: provider.get, check: checker.check });
  return { clock, provider, checker, pm };
}

const allProbes = { livenessProbe: probe(), readinessProbe: probe(), startupProbe: probe() };

describe("workers per container and probe type", () => {
  test("addPod starts one worker per probe of each regular container and sidecar, none for regular init containers", async () => {
    const pod = probedPod(allProbes, {
      initContainers: [
        { name: "init", image: "busybox", readinessProbe: probe() },
        { name: "side", image: "busybox", restartPolicy: "Always", livenessProbe: probe() },
      ],
    });
    pod.spec.containers.push({ name: "plain", image: "busybox" });
    const { pm } = setupOnClock(pod);
    pm.addPod(pod);
    expect(pm.workerCount).toBe(4);
    pm.addPod(pod); // again: the existing workers stay, no duplicates
    expect(pm.workerCount).toBe(4);
    await pm.stop();
    expect(pm.workerCount).toBe(0);
  });

  test("stopLivenessAndStartup keeps the readiness worker; removePod stops the rest", async () => {
    const pod = probedPod(allProbes);
    const { pm, clock } = setupOnClock(pod);
    pm.addPod(pod);
    pm.stopLivenessAndStartup(UID);
    await clock.advance(0);
    expect(pm.workerCount).toBe(1);
    pm.removePod(UID);
    await clock.advance(0);
    expect(pm.workerCount).toBe(0);
    await pm.stop();
  });

  test("cleanupPods stops the workers of pods that are no longer desired", async () => {
    const a = probedPod({ readinessProbe: probe() });
    const b = probedPod({ readinessProbe: probe() });
    b.metadata.uid = "uid-2";
    const { pm, clock } = setupOnClock(a);
    pm.addPod(a);
    pm.addPod(b);
    expect(pm.workerCount).toBe(2);
    pm.cleanupPods(["uid-2"]);
    await clock.advance(0);
    expect(pm.workerCount).toBe(1);
    pm.cleanupPods(new Set<string>());
    await clock.advance(0);
    expect(pm.workerCount).toBe(0);
    await pm.stop();
  });

  test("a worker that ended (pod deleted) is replaced by the next addPod", async () => {
    const pod = probedPod({ livenessProbe: probe() });
    pod.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    const { pm, clock } = setupOnClock(pod);
    pm.addPod(pod);
    await clock.advance(0);
    expect(pm.workerCount).toBe(0);
    delete pod.metadata.deletionTimestamp;
    pm.addPod(pod);
    expect(pm.workerCount).toBe(1);
    await pm.stop();
  });

  test("addPod after stop starts nothing, and stop closes the update channels", async () => {
    const pod = probedPod(allProbes);
    const { pm } = setupOnClock(pod);
    await pm.stop();
    pm.addPod(pod);
    expect(pm.workerCount).toBe(0);
    expect(pm.updates.liveness.closed && pm.updates.readiness.closed && pm.updates.startup.closed).toBe(true);
  });
});

describe("lookups for status generation and computePodActions", () => {
  test("a container a restart found running gets no initial Failure: no readiness result until its probe runs; a new one starts not ready", async () => {
    const pod = probedPod({ readinessProbe: probe({ initialDelaySeconds: 60 }) });
    const found = setupOnClock(pod, podStatus(containerStatus("id1", "running", START - 15_000)));
    found.pm.addPod(pod);
    await found.clock.advance(0);
    expect(found.pm.readiness(UID, "c", "containerd://id1")).toBeUndefined();
    expect(found.pm.ranBeforeRestart(START - 15_000)).toBe(true);
    await found.pm.stop();
    const fresh = setupOnClock(pod, podStatus(containerStatus("id1", "running", START - 5_000)));
    fresh.pm.addPod(pod);
    await fresh.clock.advance(0);
    expect(fresh.pm.readiness(UID, "c", "containerd://id1")).toBe(false);
    expect(fresh.pm.ranBeforeRestart(START - 5_000)).toBe(false);
    await fresh.pm.stop();
  });

  test("readiness: no result without a readiness worker, false until the probe succeeds, true after", async () => {
    const pod = probedPod({ readinessProbe: probe() });
    const { pm, checker, clock } = setupOnClock(pod);
    expect(pm.readiness(UID, "c", "containerd://id1")).toBeUndefined();
    checker.fallback = "Failure";
    pm.addPod(pod);
    await clock.advance(0);
    expect(pm.readiness(UID, "c", "containerd://id1")).toBe(false);
    checker.fallback = "Success";
    await clock.advance(10_000);
    expect(pm.readiness(UID, "c", "containerd://id1")).toBe(true);
    expect(pm.readiness(UID, "c", "id1")).toBe(true);
    await pm.stop();
  });

  test("asking for readiness that has not passed triggers a probe at once", async () => {
    const pod = probedPod({ readinessProbe: probe() });
    const { pm, checker, clock } = setupOnClock(pod);
    checker.queue.push("Failure");
    pm.addPod(pod);
    await clock.advance(1_000);
    expect(checker.calls.length).toBe(1);
    expect(pm.readiness(UID, "c", "containerd://id1")).toBe(false);
    await clock.advance(0);
    expect(checker.calls.length).toBe(2);
    expect(pm.readiness(UID, "c", "containerd://id1")).toBe(true);
    await clock.advance(0);
    expect(checker.calls.length).toBe(2); // a ready container triggers nothing
    await pm.stop();
  });

  test("startup: started without a startup probe; with one, only once it succeeded", async () => {
    const pod = probedPod({ startupProbe: probe({ failureThreshold: 1 }) });
    const { pm, checker, clock } = setupOnClock(pod);
    expect(pm.startup(UID, "c", "containerd://id1")).toBe(true);
    checker.fallback = "Failure";
    pm.addPod(pod);
    expect(pm.startup(UID, "c", "containerd://id1")).toBe(false); // worker exists, no result yet
    await clock.advance(0);
    expect(pm.results.startup("id1")).toBe("Failure");
    expect(pm.startup(UID, "c", "containerd://id1")).toBe(false);
    await pm.stop();
  });

  test("liveness and readiness wait for the startup probe, then run", async () => {
    const pod = probedPod({ startupProbe: probe({ periodSeconds: 1, failureThreshold: 30 }), livenessProbe: probe(), readinessProbe: probe() });
    const { pm, checker, clock } = setupOnClock(pod);
    checker.fallback = "Failure";
    pm.addPod(pod);
    await clock.advance(5_000);
    expect(checker.calls.every((c) => c.probeType === "startup")).toBe(true);
    checker.fallback = "Success";
    await clock.advance(1_000);
    expect(pm.startup(UID, "c", "id1")).toBe(true);
    await clock.advance(10_000);
    expect(new Set(checker.calls.map((c) => c.probeType))).toEqual(new Set(["startup", "liveness", "readiness"]));
    expect(pm.readiness(UID, "c", "id1")).toBe(true);
    expect(pm.results.liveness("id1")).toBe("Success");
    await pm.stop();
  });

  test("statusLookup binds the pod for generateAPIPodStatus", async () => {
    const pod = probedPod({ readinessProbe: probe(), startupProbe: probe() });
    const { pm } = setupOnClock(pod);
    pm.addPod(pod);
    const lookup = pm.statusLookup(UID);
    expect(lookup("readiness", "c", "containerd://id1")).toBe(false);
    expect(lookup("startup", "c", "containerd://id1")).toBe(false);
    expect(pm.statusLookup("other")("startup", "c", "containerd://id9")).toBe(true); // no startup worker, no result
    await pm.stop();
  });

  test("a failing liveness probe publishes one Failure update with the pod and container", async () => {
    const pod = probedPod({ livenessProbe: probe({ failureThreshold: 2, periodSeconds: 1 }) });
    const { pm, checker, clock } = setupOnClock(pod);
    checker.fallback = "Failure";
    pm.addPod(pod);
    await clock.advance(5_000);
    const updates = [];
    for (let u = pm.updates.liveness.tryReceive(); u; u = pm.updates.liveness.tryReceive()) updates.push(u.value);
    expect(updates).toEqual([
      { podUID: UID, containerId: "id1", containerName: "c", result: "Success" },
      { podUID: UID, containerId: "id1", containerName: "c", result: "Failure" },
    ]);
    expect(checker.calls.length).toBe(2); // on hold after the failure
    await pm.stop();
  });

  test("workers of a fresh manager start after a random part of their period", async () => {
    const pod = probedPod({ readinessProbe: probe() });
    const { pm, checker, clock } = setupOnClock(pod, undefined, 0.5);
    pm.addPod(pod);
    await clock.advance(4_999);
    expect(checker.calls.length).toBe(0);
    await clock.advance(1);
    expect(checker.calls.length).toBe(1);
    await pm.stop();
  });

  test("a manager past its first period starts workers without jitter", async () => {
    const pod = probedPod({ readinessProbe: probe() });
    const { pm, checker, clock } = setupOnClock(pod, undefined, 0.5);
    await clock.advance(3_600_000);
    pm.addPod(pod);
    await clock.advance(0);
    expect(checker.calls.length).toBe(1);
    await pm.stop();
  });
});

describe("ResultsManager", () => {
  test("get/set/remove, and an update only when the result changes", async () => {
    const m = new ResultsManager(10);
    const u = { podUID: "p", containerId: "a", containerName: "c" };
    await m.set({ ...u, result: "Failure" });
    await m.set({ ...u, result: "Failure" });
    await m.set({ ...u, result: "Success" });
    expect(m.get("a")).toBe("Success");
    expect(m.updates.length).toBe(2);
    m.remove("a");
    expect(m.get("a")).toBeUndefined();
    expect(m.updates.length).toBe(2); // removal is silent
    await m.set({ ...u, result: "Success" });
    expect(m.updates.length).toBe(3); // a result after removal is new again
  });

  test("set waits for room in a full channel and gives up when its signal aborts", async () => {
    const m = new ResultsManager(1);
    await m.set({ podUID: "p", containerId: "a", containerName: "c", result: "Success" });
    const ctl = new AbortController();
    let settled = false;
    const pending = m.set({ podUID: "p", containerId: "b", containerName: "c", result: "Failure" }, { signal: ctl.signal }).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(m.get("b")).toBe("Failure");
    ctl.abort();
    await pending;
    expect(m.updates.length).toBe(1);
  });

  test("parseContainerId strips the runtime prefix", () => {
    expect(parseContainerId("containerd://abc")).toBe("abc");
    expect(parseContainerId("abc")).toBe("abc");
  });
});
