import { describe, expect, test } from "bun:test";
import { Channel } from "../../../src/lib/index.ts";
import { FakeClock, createMemoryLogger, flushMicrotasks } from "../../../src/lib/testing.ts";
import { GenericPleg, PodCache, type PodLifecycleEvent } from "../../../src/pleg/index.ts";
import type { RelistDuration } from "../../../src/pleg/options.ts";
import type { RuntimeSandboxStatus } from "../../../src/container/index.ts";
import { drain, histogramCount, metricValue, podStatus, ref, runtimePod, ScriptedRuntime, testMetrics } from "./helpers.ts";

const ONE_SECOND: RelistDuration = { periodMs: 1000, thresholdMs: 180_000 };

function setup(opts: { capacity?: number; duration?: RelistDuration } = {}) {
  const clock = new FakeClock();
  const runtime = new ScriptedRuntime();
  const cache = new PodCache();
  const events = new Channel<PodLifecycleEvent>(opts.capacity ?? 1000);
  const log = createMemoryLogger();
  const metrics = testMetrics();
  const pleg = new GenericPleg({ runtime, cache, events, clock, log, metrics, signal: new AbortController().signal }, opts.duration ?? ONE_SECOND);
  return { clock, runtime, cache, events, log, metrics, pleg };
}

describe("relist", () => {
  test("reports started, died and removed containers across relists, and ContainerChanged never", async () => {
    const { runtime, events, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running"), ref("c2", "created")], [ref("s1", "running")])];
    await pleg.relist();
    expect(drain(events)).toEqual([
      { id: "a", type: "ContainerStarted", data: "c1" },
      { id: "a", type: "ContainerStarted", data: "s1" },
    ]);

    runtime.pods = [runtimePod("a", [ref("c1", "exited"), ref("c2", "created")], [ref("s1", "running")])];
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "a", type: "ContainerDied", data: "c1" }]);

    runtime.pods = [];
    await pleg.relist();
    // c2 never ran (created reads as unknown), so it is reported dead as well as removed.
    expect(drain(events)).toEqual([
      { id: "a", type: "ContainerRemoved", data: "c1" },
      { id: "a", type: "ContainerDied", data: "c2" },
      { id: "a", type: "ContainerRemoved", data: "c2" },
      { id: "a", type: "ContainerDied", data: "s1" },
      { id: "a", type: "ContainerRemoved", data: "s1" },
    ]);
  });

  test("reads status only for pods with events and stamps the cache with the relist start", async () => {
    const { clock, runtime, cache, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")]), runtimePod("b", [ref("c2", "running")])];
    runtime.statuses.set("a", podStatus("a", { ips: ["10.0.0.5"] }));
    await pleg.relist();
    expect(runtime.statusCalls.sort()).toEqual(["a", "b"]);
    expect(cache.get("a").status.ips).toEqual(["10.0.0.5"]);
    expect(cache.get("a").modified).toBe(clock.now());
    expect(cache.timestamp).toBe(clock.now());

    runtime.statusCalls = [];
    await clock.advance(1000);
    runtime.pods = [runtimePod("a", [ref("c1", "exited")]), runtimePod("b", [ref("c2", "running")])];
    await pleg.relist();
    expect(runtime.statusCalls).toEqual(["a"]);
    expect(cache.timestamp).toBe(clock.now());
  });

  test("a pod gone from the runtime is deleted from the cache", async () => {
    const { runtime, cache, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    await pleg.relist();
    expect(cache.has("a")).toBe(true);
    runtime.pods = [];
    await pleg.relist();
    expect(cache.has("a")).toBe(false);
  });

  test("a pod whose status cannot be read is reinspected, and its events held until it can", async () => {
    const { clock, runtime, cache, events, pleg, log } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    runtime.failStatus.add("a");
    await pleg.relist();
    expect(drain(events)).toEqual([]);
    expect(cache.get("a").error).toBeInstanceOf(Error);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "could not read pod status from the runtime", pod: { name: "pod-a", namespace: "default" } }));

    // Still failing: the same change is detected again, still no events.
    await clock.advance(1000);
    await pleg.relist();
    expect(drain(events)).toEqual([]);
    expect(runtime.statusCalls).toEqual(["a", "a"]);

    runtime.failStatus.clear();
    await clock.advance(1000);
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "a", type: "ContainerStarted", data: "c1" }]);
    expect(cache.get("a").error).toBeUndefined();

    // Nothing changed and nothing to reinspect: no status read.
    await pleg.relist();
    expect(runtime.statusCalls).toEqual(["a", "a", "a"]);
  });

  test("a pod needing reinspection without new events is read again and its error cleared", async () => {
    const { clock, runtime, cache, events, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    await pleg.relist();
    drain(events);
    runtime.pods = [runtimePod("a", [ref("c1", "exited")])];
    runtime.failStatus.add("a");
    await clock.advance(1000);
    await pleg.relist();
    expect(cache.get("a").error).toBeInstanceOf(Error);
    runtime.failStatus.clear();
    await clock.advance(1000);
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "a", type: "ContainerDied", data: "c1" }]);
    expect(cache.get("a").error).toBeUndefined();
  });

  test("a pod reinspected with no change left to report gets a PodSync once its status is read", async () => {
    const { clock, runtime, events, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    await pleg.relist();
    drain(events);
    runtime.pods = [runtimePod("a", [ref("c1", "exited")])];
    runtime.failStatus.add("a");
    await clock.advance(1000);
    await pleg.relist();
    // Back to what the last acknowledged relist saw: no container event, but a fresh read.
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    runtime.failStatus.clear();
    await clock.advance(1000);
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "a", type: "PodSync", data: "" }]);
  });

  test("when the channel is full, events are discarded, counted and logged", async () => {
    const { runtime, events, pleg, metrics, log } = setup({ capacity: 1 });
    runtime.pods = [runtimePod("a", [ref("c1", "running"), ref("c2", "running"), ref("c3", "running")])];
    await pleg.relist();
    expect(events.length).toBe(1);
    expect(await metricValue(metrics.plegDiscardEvents)).toBe(2);
    expect(log.lines.filter((l) => String(l.msg).startsWith("event channel is full")).length).toBe(2);
  });

  test("a failed listing leaves the relist time alone and does not touch the cache", async () => {
    const { clock, runtime, cache, pleg, log } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    await pleg.relist();
    const first = pleg.relistTime;
    await clock.advance(1000);
    runtime.failList = true;
    await pleg.relist();
    expect(pleg.relistTime).toBe(first);
    expect(cache.timestamp).toBe(first);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "relist failed: could not list pods from the runtime" }));
  });

  test("keeps the pod IPs once the sandbox is gone", async () => {
    const { clock, runtime, cache, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")], [ref("s1", "running")])];
    runtime.statuses.set("a", podStatus("a", { ips: ["10.0.0.7"], sandboxStatuses: [sandbox("ready")] }));
    await pleg.relist();
    runtime.pods = [runtimePod("a", [ref("c1", "exited")], [ref("s1", "exited")])];
    runtime.statuses.set("a", podStatus("a", { ips: [], sandboxStatuses: [sandbox("notready")] }));
    await clock.advance(1000);
    await pleg.relist();
    expect(cache.get("a").status.ips).toEqual(["10.0.0.7"]);
  });

  test("sets running pod and container gauges and observes relist metrics", async () => {
    const { clock, runtime, metrics, pleg } = setup();
    runtime.pods = [
      runtimePod("a", [ref("c1", "running"), ref("c2", "exited")], [ref("s1", "running")]),
      runtimePod("b", [ref("c3", "running")], [ref("s2", "exited")]),
    ];
    await pleg.relist();
    await clock.advance(1000);
    await pleg.relist();
    expect(await metricValue(metrics.runningPods)).toBe(1);
    expect(await metricValue(metrics.runningContainers, { container_state: "running" })).toBe(2);
    expect(await metricValue(metrics.runningContainers, { container_state: "exited" })).toBe(1);
    expect(await histogramCount(metrics.plegRelistDuration)).toBe(2);
    expect(await histogramCount(metrics.plegRelistInterval)).toBe(1);
  });
});

describe("on-demand pod relist (PLEGOnDemandRelist)", () => {
  /** Lets a requested pod relist run: it reads the pod only once the clock has passed the request. */
  async function served(clock: FakeClock): Promise<void> {
    await clock.advance(1);
    await flushMicrotasks();
  }

  test("reads only that pod, reports its change and caches it at once; other pods and the global timestamp wait for the periodic relist", async () => {
    const { clock, runtime, cache, events, metrics, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")]), runtimePod("b", [ref("c2", "running")])];
    await pleg.relist();
    drain(events);
    const relistedAt = clock.now();
    runtime.pods = [runtimePod("a", [ref("c1", "exited"), ref("c3", "running")]), runtimePod("b", [ref("c2", "exited")])];
    const waitA = cache.getNewerThan("a", clock.now());
    let bDone = false;
    void cache.getNewerThan("b", clock.now()).then(() => (bDone = true));
    runtime.statusCalls = [];

    pleg.requestPodRelist("a");
    await flushMicrotasks();
    // Read in the same millisecond as the request, it would not be newer than the worker's last sync.
    expect(runtime.podCalls).toEqual([]);
    await served(clock);
    expect(runtime.podCalls).toEqual(["a"]);
    expect(runtime.listCalls).toBe(1);
    expect(runtime.statusCalls).toEqual(["a"]);
    expect(drain(events)).toEqual([
      { id: "a", type: "ContainerDied", data: "c1" },
      { id: "a", type: "ContainerStarted", data: "c3" },
    ]);
    expect((await waitA).modified).toBe(clock.now());
    expect(bDone).toBe(false);
    expect(cache.timestamp).toBe(relistedAt);
    expect(await histogramCount(metrics.plegPodRelistDuration)).toBe(1);
    expect(await histogramCount(metrics.plegRelistDuration)).toBe(1);

    // The periodic relist reports b's change, and a's not a second time.
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "b", type: "ContainerDied", data: "c2" }]);
    expect(bDone).toBe(true);
  });

  test("a pod found unchanged is not inspected, and its waiter is released by the time it was seen", async () => {
    const { clock, runtime, cache, events, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    await pleg.relist();
    drain(events);
    runtime.statusCalls = [];
    let released = false;
    void cache.getNewerThan("a", clock.now()).then(() => (released = true));
    pleg.requestPodRelist("a");
    await served(clock);
    expect(runtime.statusCalls).toEqual([]);
    expect(drain(events)).toEqual([]);
    expect(released).toBe(true);
    expect(cache.get("a").observed).toBe(clock.now());
  });

  test("requests for a pod whose relist has not started share it", async () => {
    const { clock, runtime, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    pleg.requestPodRelist("a");
    pleg.requestPodRelist("a");
    pleg.requestPodRelist("b");
    pleg.requestPodRelist("a");
    await served(clock);
    expect(runtime.podCalls).toEqual(["a", "b"]);
    pleg.requestPodRelist("a");
    await served(clock);
    expect(runtime.podCalls).toEqual(["a", "b", "a"]);
  });

  test("a pod whose status cannot be read keeps its change for the next relist, which reports it", async () => {
    const { clock, runtime, events, log, pleg } = setup();
    runtime.pods = [runtimePod("a", [ref("c1", "running")])];
    runtime.failStatus.add("a");
    pleg.requestPodRelist("a");
    await served(clock);
    expect(drain(events)).toEqual([]);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "could not read pod status from the runtime" }));
    runtime.failStatus.clear();
    await pleg.relist();
    expect(drain(events)).toEqual([{ id: "a", type: "ContainerStarted", data: "c1" }]);
  });

  test("a pod the runtime has nothing of, or a failed lookup, is logged as the kubelet does and left to the next relist", async () => {
    const { clock, runtime, cache, events, log, pleg } = setup();
    pleg.requestPodRelist("gone");
    await served(clock);
    runtime.failPod = true;
    pleg.requestPodRelist("a");
    await served(clock);
    const lines = log.lines.filter((l) => l.msg === "GenericPLEG: Unable to retrieve pod");
    expect(lines.map((l) => [l.level, l.podUID, String(l.err)])).toEqual([
      ["error", "gone", "pod not found"],
      ["error", "a", "Error: runtime is down"],
    ]);
    expect(drain(events)).toEqual([]);
    expect(cache.uids()).toEqual([]);
  });
});

describe("kubelet_pleg_last_seen_seconds", () => {
  test("is set by each successful relist, not by health checks", async () => {
    const { clock, runtime, pleg, metrics } = setup();
    await clock.advance(7_000);
    await pleg.relist();
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(clock.now() / 1000));
    const seen = clock.now();
    await clock.advance(200_000);
    pleg.healthy();
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(seen / 1000));
    // A relist that cannot list the runtime is not activity.
    runtime.failList = true;
    await pleg.relist();
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(seen / 1000));
  });
});

describe("healthy", () => {
  test("is not healthy before the first successful relist", () => {
    const { pleg } = setup();
    expect(pleg.healthy()).toEqual({ ok: false, message: "pleg has yet to be successful" });
  });

  test("turns unhealthy once the last relist is older than the threshold, with the kubelet's message", async () => {
    const { clock, pleg } = setup();
    await pleg.relist();
    await clock.advance(180_000);
    expect(pleg.healthy()).toEqual({ ok: true });
    await clock.advance(1000);
    expect(pleg.healthy()).toEqual({ ok: false, message: "pleg was last seen active 3m1s ago; threshold is 3m0s" });
  });

  test("uses the threshold set by update()", async () => {
    const { clock, pleg } = setup();
    await pleg.relist();
    await clock.advance(200_000);
    expect(pleg.healthy().ok).toBe(false);
    pleg.update({ periodMs: 300_000, thresholdMs: 600_000 });
    expect(pleg.healthy().ok).toBe(true);
  });
});

describe("relist loop", () => {
  test("relists at once and then every period", async () => {
    const { clock, runtime, pleg } = setup();
    pleg.start();
    await clock.advance(0);
    expect(runtime.listCalls).toBe(1);
    await clock.advance(999);
    expect(runtime.listCalls).toBe(1);
    await clock.advance(1);
    expect(runtime.listCalls).toBe(2);
    await clock.advance(3000);
    expect(runtime.listCalls).toBe(5);
    await pleg.stop();
  });

  test("a new period applies at once, measured from the last relist", async () => {
    const { clock, runtime, pleg } = setup({ duration: { periodMs: 300_000, thresholdMs: 600_000 } });
    pleg.start();
    await clock.advance(10_000);
    expect(runtime.listCalls).toBe(1);
    pleg.update(ONE_SECOND);
    await clock.advance(0);
    expect(runtime.listCalls).toBe(2);
    await clock.advance(1000);
    expect(runtime.listCalls).toBe(3);
    pleg.update({ periodMs: 300_000, thresholdMs: 600_000 });
    await clock.advance(299_000);
    expect(runtime.listCalls).toBe(3);
    await clock.advance(1000);
    expect(runtime.listCalls).toBe(4);
    await pleg.stop();
  });

  test("stops, and starts again", async () => {
    const { clock, runtime, pleg } = setup();
    pleg.start();
    await clock.advance(0);
    await pleg.stop();
    expect(pleg.running).toBe(false);
    await clock.advance(10_000);
    expect(runtime.listCalls).toBe(1);
    pleg.start();
    await clock.advance(0);
    expect(runtime.listCalls).toBe(2);
    await clock.advance(1000);
    expect(runtime.listCalls).toBe(3);
    await pleg.stop();
    expect(clock.pending).toBe(0);
  });

  test("relist requests made while a relist runs share one follow-up relist", async () => {
    const { runtime, pleg } = setup();
    let release!: () => void;
    const list = runtime.getPods.bind(runtime);
    runtime.getPods = async () => {
      if (runtime.listCalls === 0) await new Promise<void>((r) => (release = r));
      return list();
    };
    const running = pleg.relist();
    await Promise.resolve();
    const requests = [pleg.requestRelist(), pleg.requestRelist(), pleg.requestRelist()];
    expect(requests[1]).toBe(requests[0]!);
    release();
    await Promise.all([running, ...requests]);
    expect(runtime.listCalls).toBe(2);
    await pleg.requestRelist();
    expect(runtime.listCalls).toBe(3);
  });

  test("a forced relist runs after the one in progress, never alongside it", async () => {
    const { runtime, pleg } = setup();
    let inFlight = 0;
    let maxInFlight = 0;
    const list = runtime.getPods.bind(runtime);
    runtime.getPods = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Promise.resolve();
      inFlight--;
      return list();
    };
    await Promise.all([pleg.relist(), pleg.relist(), pleg.relist()]);
    expect(runtime.listCalls).toBe(3);
    expect(maxInFlight).toBe(1);
  });
});

function sandbox(state: "ready" | "notready"): RuntimeSandboxStatus {
  return {
    id: "s1",
    state,
    createdAt: 1,
    attempt: 0,
    ips: [],
    hostNetwork: false,
    name: "pod-a",
    namespace: "default",
    uid: "a",
    labels: {},
    annotations: {},
  };
}
