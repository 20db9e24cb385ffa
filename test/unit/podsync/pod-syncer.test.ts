import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { ContainersStillRunningError, createPodSyncer, type PodSyncerDeps } from "../../../src/podsync/pod-syncer.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { Reason, SyncError } from "../../../src/runtime/index.ts";
import { container, statusGenerator, FakePodDirs, FakeRuntime, FakeStatusManager, configPod, podStatus } from "./fakes.ts";

function harness(extra: Partial<PodSyncerDeps> = {}) {
  const clock = new FakeClock();
  const runtime = new FakeRuntime();
  const statusManager = new FakeStatusManager();
  const podDirs = new FakePodDirs();
  const podManager = new PodManager(() => clock.now());
  const terminationRequested = new Set<string>();
  let networkNotReady: string | undefined;
  const mounted: string[] = [];
  const unmounted: string[] = [];
  const relisted: string[] = [];
  let volumeError: Error | undefined;
  const metrics = createMetrics(new Registry());
  const log = createMemoryLogger();
  const syncer = createPodSyncer({
    runtime,
    statusManager,
    generateStatus: statusGenerator(statusManager),
    podDirs,
    podManager,
    isTerminationRequested: (uid) => terminationRequested.has(uid),
    networkNotReady: () => networkNotReady,
    recorder: { event: () => undefined },
    mountVolumes: async (pod) => {
      mounted.push(pod.metadata.name ?? "");
      if (volumeError) throw volumeError;
    },
    unmountVolumes: async (uid) => void unmounted.push(uid),
    requestPodRelist: (uid) => void relisted.push(uid),
    clock,
    log,
    metrics,
    ...extra,
  });
  return {
    clock,
    runtime,
    statusManager,
    podDirs,
    podManager,
    terminationRequested,
    metrics,
    log,
    syncer,
    setNetworkNotReady: (m: string | undefined) => (networkNotReady = m),
    mounted,
    unmounted,
    relisted,
    failVolumes: (err: Error) => (volumeError = err),
    signal: new AbortController().signal,
  };
}

describe("syncPod", () => {
  test("records the status, makes the pod directory and asks the runtime to converge the pod", async () => {
    const h = harness();
    const pod = configPod("a");
    const result = await h.syncer.syncPod(h.signal, "create", pod, undefined, podStatus("uid-a"));
    expect(result).toEqual({ isTerminal: false });
    expect(h.statusManager.history).toEqual([{ uid: "uid-a", phase: "Pending" }]);
    expect(h.podDirs.dirs).toEqual(new Set(["uid-a"]));
    expect(h.runtime.calls).toEqual(["syncPod:a"]);
  });

  test("a sync that started or killed something hands the worker a relist of the pod, to call once it has taken its sync time", async () => {
    const h = harness();
    h.runtime.syncSteps = [{ action: "StartContainer", target: "main", durationMs: 3 }];
    const result = await h.syncer.syncPod(h.signal, "create", configPod("a"), undefined, podStatus("uid-a"));
    expect(result.isTerminal).toBe(false);
    expect(h.relisted).toEqual([]);
    result.postSync?.();
    expect(h.relisted).toEqual(["uid-a"]);
  });

  test("a sync with nothing to do, or one that failed, asks for no relist", async () => {
    const h = harness();
    expect(await h.syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a"))).toEqual({ isTerminal: false });
    h.runtime.syncSteps = [{ action: "StartContainer", target: "main", durationMs: 3, error: { reason: "RunContainerError", message: "boom" } }];
    h.runtime.syncError = new SyncError("RunContainerError", "boom");
    await expect(h.syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a"))).rejects.toThrow("boom");
    expect(h.relisted).toEqual([]);
  });

  test("a pod that reached a terminal phase is reported terminal and nothing is started", async () => {
    const h = harness();
    const done = { ...container("c", "exited"), exitCode: 0 };
    const result = await h.syncer.syncPod(h.signal, "sync", configPod("a", { restartPolicy: "Never" }), undefined, podStatus("uid-a", [done]));
    expect(result).toEqual({ isTerminal: true });
    expect(h.statusManager.history).toEqual([{ uid: "uid-a", phase: "Succeeded" }]);
    expect(h.runtime.calls).toEqual([]);
  });

  test.each([
    ["has a deletion timestamp", true, false],
    ["is being terminated by its worker", false, true],
  ])("a pod that %s gets its status but no new containers", async (_name, deleting, requested) => {
    const h = harness();
    const pod = configPod("a", { deleting });
    if (requested) h.terminationRequested.add("uid-a");
    const result = await h.syncer.syncPod(h.signal, "update", pod, undefined, podStatus("uid-a"));
    expect(result).toEqual({ isTerminal: false });
    expect(h.statusManager.history.length).toBe(1);
    expect(h.runtime.calls).toEqual([]);
    expect(h.podDirs.dirs.size).toBe(0);
  });

  test("without a pod network only host-network pods start", async () => {
    const h = harness();
    h.setNetworkNotReady("cni config uninitialized");
    const err = await h.syncer.syncPod(h.signal, "create", configPod("a"), undefined, podStatus("uid-a")).catch((e) => e);
    expect(err).toBeInstanceOf(SyncError);
    expect(err.reason).toBe(Reason.NetworkNotReady);
    expect(err.message).toBe("network is not ready: cni config uninitialized");
    expect(h.runtime.calls).toEqual([]);

    await h.syncer.syncPod(h.signal, "create", configPod("h", { hostNetwork: true }), undefined, podStatus("uid-h"));
    expect(h.runtime.calls).toEqual(["syncPod:h"]);
  });

  test("volumes are set up after the pod directory; a failed setup starts nothing and is the sync's error", async () => {
    const h = harness();
    const failure = new Error("unmounted volumes=[data]: MountVolume.SetUp failed for volume \"data\" : hostPath type check failed: /x is not a file");
    h.failVolumes(failure);
    const err = await h.syncer.syncPod(h.signal, "create", configPod("a"), undefined, podStatus("uid-a")).catch((e) => e);
    expect(err).toBe(failure);
    expect(h.mounted).toEqual(["a"]);
    expect(h.podDirs.dirs).toEqual(new Set(["uid-a"]));
    expect(h.runtime.calls).toEqual([]);
    // The pod stays Pending (its containers in ContainerCreating) until the volumes can be set up.
    expect(h.statusManager.history).toEqual([{ uid: "uid-a", phase: "Pending" }]);
  });

  test("a runtime sync error is thrown as is, so the workers can honour its backoff", async () => {
    const h = harness();
    const backoff = new SyncError("CrashLoopBackOff", "back-off 10s restarting failed container", 123);
    h.runtime.syncError = backoff;
    const err = await h.syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a")).catch((e) => e);
    expect(err).toBe(backoff);
  });

  test("a failed runtime sync records the status again, with the waiting reason the sync just found", async () => {
    const h = harness();
    const reasons = new Map<string, { reason: string; message: string }>();
    const syncer = createPodSyncer({
      runtime: h.runtime,
      statusManager: h.statusManager,
      // The real generator, reading `reasons` where the agent reads the runtime's reason cache.
      generateStatus: statusGenerator(h.statusManager, (uid, name) => reasons.get(`${uid}/${name}`)),
      podDirs: h.podDirs,
      podManager: h.podManager,
      isTerminationRequested: () => false,
      networkNotReady: () => undefined,
      recorder: { event: () => undefined },
      mountVolumes: async () => {},
      requestPodRelist: () => {},
      unmountVolumes: async () => {},
      clock: h.clock,
      log: h.log,
      metrics: h.metrics,
    });
    const waiting: unknown[] = [];
    const setPodStatus = h.statusManager.setPodStatus.bind(h.statusManager);
    h.statusManager.setPodStatus = (pod, status) => {
      waiting.push(status.containerStatuses?.map((c) => c.state?.waiting));
      setPodStatus(pod, status);
    };
    const backoff = new SyncError("CrashLoopBackOff", "back-off 20s restarting failed container", 123);
    h.runtime.syncError = backoff;
    h.runtime.onSync = () => reasons.set("uid-a/c", { reason: "CrashLoopBackOff", message: backoff.message });
    const err = await syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a")).catch((e) => e);
    expect(err).toBe(backoff);
    expect(h.statusManager.history).toEqual([
      { uid: "uid-a", phase: "Pending" },
      { uid: "uid-a", phase: "Pending" },
    ]);
    expect(waiting).toEqual([
      [{ reason: "ContainerCreating" }],
      [{ reason: "CrashLoopBackOff", message: "back-off 20s restarting failed container" }],
    ]);
  });

  test("the Pending → Running transition records the time since the pod was first seen", async () => {
    const h = harness();
    const pod = configPod("a");
    h.podManager.upsert(pod);
    await h.syncer.syncPod(h.signal, "create", pod, undefined, podStatus("uid-a"));
    await h.clock.advance(1500);
    await h.syncer.syncPod(h.signal, "sync", pod, undefined, podStatus("uid-a", [container("c", "running")]));
    await h.syncer.syncPod(h.signal, "sync", pod, undefined, podStatus("uid-a", [container("c", "running")]));
    const hist = await h.metrics.podStartDuration.get();
    const count = hist.values.find((v) => v.metricName === "kubelet_pod_start_duration_seconds_count")?.value;
    const sum = hist.values.find((v) => v.metricName === "kubelet_pod_start_duration_seconds_sum")?.value;
    expect(count).toBe(1);
    expect(sum).toBe(1.5);
    expect(h.log.lines.filter((l) => l.msg === "Pod is running")).toEqual([
      { level: "info", msg: "Pod is running", pod: { name: "a", namespace: "default" }, podUID: "uid-a", sinceFirstSeenSeconds: 1.5 },
    ]);
  });

  test("the first (create) sync records the time from first seen to the worker starting", async () => {
    const h = harness();
    const pod = configPod("a");
    h.podManager.upsert(pod);
    await h.clock.advance(250);
    await h.syncer.syncPod(h.signal, "create", pod, undefined, podStatus("uid-a"));
    await h.syncer.syncPod(h.signal, "sync", pod, undefined, podStatus("uid-a"));
    const values = (await h.metrics.podWorkerStartDuration.get()).values;
    expect(values.find((v) => v.metricName === "kubelet_pod_worker_start_duration_seconds_count")?.value).toBe(1);
    expect(values.find((v) => v.metricName === "kubelet_pod_worker_start_duration_seconds_sum")?.value).toBe(0.25);
  });

  test("a pod adopted already Running (bunlet restarted) records no start duration", async () => {
    const h = harness();
    const pod = configPod("a");
    h.podManager.upsert(pod);
    await h.syncer.syncPod(h.signal, "create", pod, undefined, podStatus("uid-a", [container("c", "running")]));
    const hist = await h.metrics.podStartDuration.get();
    expect(hist.values.find((v) => v.metricName === "kubelet_pod_start_duration_seconds_count")?.value).toBe(0);
  });
});

describe("syncTerminatingPod", () => {
  test("kills the running pod with the worker's grace, then records a terminal status", async () => {
    const h = harness();
    // An apiserver pod: static pods never get a terminal phase from the kill (kubernetes#116484).
    const pod = configPod("a", { source: "api" });
    const running = podStatus("uid-a", [container("c", "running"), container("old", "exited", "old-id")]);
    h.runtime.statusAfterKill = podStatus("uid-a", [{ ...container("c", "exited"), exitCode: 137 }]);
    await h.syncer.syncTerminatingPod(h.signal, pod, running, 7);
    expect(h.runtime.calls).toEqual(["killPod:a:7", "getPodStatus:uid-a"]);
    expect(h.runtime.killed[0].runningPod.containers.map((c) => c.id)).toEqual(["c-id"]);
    expect(h.statusManager.history).toEqual([
      { uid: "uid-a", phase: "Running" },
      { uid: "uid-a", phase: "Failed" },
    ]);
  });

  test("the status function of the kill is applied to the first status", async () => {
    const h = harness();
    h.runtime.statusAfterKill = podStatus("uid-a", [{ ...container("c", "exited"), exitCode: 137 }]);
    const running = podStatus("uid-a", [container("c", "running")]);
    await h.syncer.syncTerminatingPod(h.signal, configPod("a", { source: "api" }), running, 1, (s) => (s.message = "preempted"));
    // The terminal status after the kill is computed fresh: a new phase drops the old message.
    expect(h.statusManager.history).toEqual([
      { uid: "uid-a", phase: "Running", message: "preempted" },
      { uid: "uid-a", phase: "Failed" },
    ]);
  });

  test("a container still running after a successful kill is an error (CRI violation)", async () => {
    const h = harness();
    h.runtime.statusAfterKill = podStatus("uid-a", [container("c", "running")]);
    const err = await h.syncer.syncTerminatingPod(h.signal, configPod("a"), podStatus("uid-a"), 30).catch((e) => e);
    expect(err).toBeInstanceOf(ContainersStillRunningError);
  });

  test("a failed kill is thrown so the worker retries", async () => {
    const h = harness();
    h.runtime.killError = new Error("StopContainer: deadline exceeded");
    const err = await h.syncer.syncTerminatingPod(h.signal, configPod("a"), podStatus("uid-a"), 30).catch((e) => e);
    expect(err).toBe(h.runtime.killError);
    expect(h.statusManager.history.length).toBe(1);
  });
});

describe("syncTerminatingRuntimePod", () => {
  test("an orphan runtime pod is killed with a one second grace", async () => {
    const h = harness();
    await h.syncer.syncTerminatingRuntimePod(h.signal, { uid: "o", name: "x", namespace: "default", sandboxes: [], containers: [] });
    expect(h.runtime.calls).toEqual(["killPod:o:1"]);
  });
});

describe("syncTerminatedPod", () => {
  test("a pod removed from its source leaves no directory, status or backoff behind", async () => {
    const h = harness();
    h.podDirs.dirs.add("uid-a");
    await h.syncer.syncTerminatedPod(h.signal, configPod("a"), podStatus("uid-a"));
    expect(h.statusManager.terminated).toEqual(["uid-a"]);
    expect(h.statusManager.deleted).toEqual(["uid-a"]);
    expect(h.runtime.calls).toEqual(["forget:uid-a"]);
    expect(h.podDirs.dirs.size).toBe(0);
  });

  test("a completed pod that is still desired keeps its directory and final status", async () => {
    const h = harness();
    const pod = configPod("a", { restartPolicy: "OnFailure" });
    h.podManager.upsert(pod);
    h.podDirs.dirs.add("uid-a");
    await h.syncer.syncTerminatedPod(h.signal, pod, podStatus("uid-a", [{ ...container("c", "exited"), exitCode: 0 }]));
    expect(h.statusManager.getPodStatus("uid-a")?.phase).toBe("Succeeded");
    expect(h.statusManager.deleted).toEqual([]);
    expect(h.podDirs.dirs).toEqual(new Set(["uid-a"]));
  });

  test("the volumes of a terminated pod are torn down, whether or not it is still desired", async () => {
    const h = harness();
    const pod = configPod("a", { restartPolicy: "OnFailure" });
    h.podManager.upsert(pod);
    await h.syncer.syncTerminatedPod(h.signal, pod, podStatus("uid-a", [{ ...container("c", "exited"), exitCode: 0 }]));
    await h.syncer.syncTerminatedPod(h.signal, configPod("b"), podStatus("uid-b"));
    expect(h.unmounted).toEqual(["uid-a", "uid-b"]);
  });

  test("a directory that cannot be removed yet is left to housekeeping, without failing the sync", async () => {
    const h = harness();
    h.podDirs.dirs.add("uid-a");
    h.podDirs.stuck.add("uid-a");
    await h.syncer.syncTerminatedPod(h.signal, configPod("a"), podStatus("uid-a"));
    expect(h.podDirs.dirs).toEqual(new Set(["uid-a"]));
    expect(h.log.lines.some((l) => l.level === "warn" && l.podUID === "uid-a")).toBe(true);
  });
});

describe("the pod cgroup (SyncPod's cgroup step, SyncTerminatedPod's removal)", () => {
  function withCgroups(opts: { exists?: boolean; ensureError?: Error } = {}) {
    const calls: string[] = [];
    const events: string[] = [];
    let exists = opts.exists ?? false;
    const h = harness({
      podCgroups: {
        exists: () => exists,
        ensure: (pod) => {
          calls.push(`ensure:${pod.metadata.name}`);
          if (opts.ensureError) throw opts.ensureError;
          exists = true;
        },
        destroy: (pod) => void calls.push(`destroy:${pod.metadata.name}`),
      },
      recorder: { event: (_ref, type, reason, message) => void events.push(`${type} ${reason} ${message}`) },
    });
    return { h, calls, events };
  }

  test("a new pod's cgroup is made before the runtime creates its sandbox", async () => {
    const { h, calls } = withCgroups();
    const seen: string[] = [];
    h.runtime.onSync = () => void seen.push(`runtime after ${calls.join(",")}`);
    await h.syncer.syncPod(h.signal, "create", configPod("a"), undefined, podStatus("uid-a"));
    expect(seen).toEqual(["runtime after ensure:a"]);
  });

  test("an existing pod cgroup is left as it is", async () => {
    const { h, calls } = withCgroups({ exists: true });
    await h.syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a", [container("c", "running")]));
    expect(calls).toEqual([]);
    expect(h.runtime.calls).toEqual(["syncPod:a"]);
  });

  test("a pod running outside a pod cgroup is killed, then gets one and is synced", async () => {
    const { h, calls } = withCgroups();
    await h.syncer.syncPod(h.signal, "sync", configPod("a"), undefined, podStatus("uid-a", [container("c", "running")]));
    expect(h.runtime.calls.filter((c) => c.startsWith("killPod") || c.startsWith("syncPod"))).toEqual(["killPod:a:undefined", "syncPod:a"]);
    expect(calls).toEqual(["ensure:a"]);
  });

  test("a run-once pod killed so stays down: no cgroup, no sync", async () => {
    const { h, calls } = withCgroups();
    await h.syncer.syncPod(h.signal, "sync", configPod("a", { restartPolicy: "Never" }), undefined, podStatus("uid-a", [container("c", "running")]));
    expect(calls).toEqual([]);
    expect(h.runtime.calls.filter((c) => c.startsWith("syncPod"))).toEqual([]);
  });

  test("a pod cgroup that cannot be made fails the sync with the kubelet's event and error, and nothing starts", async () => {
    const { h, events } = withCgroups({ ensureError: new Error("mkdir /sys/fs/cgroup/cpu/kubepods: read-only file system") });
    await expect(h.syncer.syncPod(h.signal, "create", configPod("a"), undefined, podStatus("uid-a"))).rejects.toThrow(
      "failed to ensure that the pod: uid-a cgroups exist and are correctly applied: mkdir /sys/fs/cgroup/cpu/kubepods: read-only file system",
    );
    expect(events).toEqual(["Warning FailedCreatePodContainer unable to ensure pod container exists: mkdir /sys/fs/cgroup/cpu/kubepods: read-only file system"]);
    expect(h.runtime.calls).toEqual([]);
  });

  test("a terminated pod's cgroup is removed once its containers are gone", async () => {
    const { h, calls } = withCgroups({ exists: true });
    await h.syncer.syncTerminatedPod(h.signal, configPod("a"), podStatus("uid-a"));
    expect(calls).toEqual(["destroy:a"]);
  });
});
