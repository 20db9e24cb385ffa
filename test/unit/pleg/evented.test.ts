import { describe, expect, test } from "bun:test";
import { ContainerEventType, ContainerState } from "../../../src/cri/index.ts";
import { Channel } from "../../../src/lib/index.ts";
import { FakeClock, createMemoryLogger } from "../../../src/lib/testing.ts";
import { PodCache, type PodLifecycleEvent } from "../../../src/pleg/index.ts";
import { EventedPleg } from "../../../src/pleg/evented.ts";
import { containerEvent, drain, histogramCount, metricValue, podStatus, testMetrics } from "./helpers.ts";

function setup(capacity = 1000) {
  const clock = new FakeClock();
  const cache = new PodCache();
  const events = new Channel<PodLifecycleEvent>(capacity);
  const log = createMemoryLogger();
  const metrics = testMetrics();
  const pleg = new EventedPleg({ cache, events, clock, log, metrics });
  return { clock, cache, events, log, metrics, pleg };
}

const running = (id: string, name = "app") => ({ id, name, state: ContainerState.CONTAINER_RUNNING });
const exited = (id: string, name = "app") => ({ id, name, state: ContainerState.CONTAINER_EXITED });

describe("processEvent", () => {
  test("caches the event's status at the event's time and sends the lifecycle event", () => {
    const { clock, cache, events, pleg } = setup();
    const at = clock.now() - 3;
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: at, ip: "10.0.0.9", containers: [running("c1")] }));
    expect(cache.get("u1").modified).toBe(at);
    expect(cache.get("u1").status.containerStatuses[0]).toMatchObject({ id: "c1", state: "running" });
    expect(cache.get("u1").status.ips).toEqual(["10.0.0.9"]);
    expect(drain(events)).toEqual([{ id: "u1", type: "ContainerStarted", data: "c1" }]);
  });

  test("CREATED updates the cache and sends nothing", () => {
    const { clock, cache, events, pleg } = setup();
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_CREATED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [{ id: "c1", name: "app", state: ContainerState.CONTAINER_CREATED }] }));
    expect(cache.get("u1").status.containerStatuses[0]!.state).toBe("created");
    expect(drain(events)).toEqual([]);
  });

  test("an event older than the cached status is ignored, events included", () => {
    const { clock, cache, events, pleg } = setup();
    cache.set("u1", podStatus("u1"), undefined, clock.now());
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STOPPED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now() - 1, containers: [exited("c1")] }));
    expect(cache.get("u1").status.containerStatuses).toEqual([]);
    expect(drain(events)).toEqual([]);
  });

  test("a deleted sandbox removes the pod from the cache; both events are sent", () => {
    const { clock, cache, events, pleg } = setup();
    cache.set("u1", podStatus("u1"), undefined, clock.now() - 10);
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_DELETED_EVENT, containerId: "sb1", sandboxId: "sb1", uid: "u1", createdAtMs: clock.now(), sandboxReady: false }));
    expect(cache.has("u1")).toBe(false);
    expect(drain(events).map((e) => e.type)).toEqual(["ContainerDied", "ContainerRemoved"]);
  });

  test("a deleted old sandbox keeps newer cached status of the pod", () => {
    const { clock, cache, events, pleg } = setup();
    cache.set("u1", podStatus("u1", { ips: ["10.0.0.2"] }), undefined, clock.now());
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_DELETED_EVENT, containerId: "sb-old", sandboxId: "sb-old", uid: "u1", createdAtMs: clock.now() - 5 }));
    expect(cache.get("u1").status.ips).toEqual(["10.0.0.2"]);
    expect(drain(events).map((e) => e.type)).toEqual(["ContainerDied", "ContainerRemoved"]);
  });

  test("a deleted container refreshes the cache without it", () => {
    const { clock, cache, pleg } = setup();
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c2", uid: "u1", createdAtMs: clock.now() - 2, containers: [exited("c1"), running("c2")] }));
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_DELETED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [running("c2")] }));
    expect(cache.get("u1").status.containerStatuses.map((c) => c.id)).toEqual(["c2"]);
  });

  test("keeps the pod IPs when the event's sandbox is no longer ready", () => {
    const { clock, cache, pleg } = setup();
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now() - 2, ip: "10.0.0.3", containers: [running("c1")] }));
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STOPPED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), sandboxReady: false, containers: [exited("c1")] }));
    expect(cache.get("u1").status.ips).toEqual(["10.0.0.3"]);
  });

  test("an event without sandbox metadata is logged and ignored", () => {
    const { cache, events, log, pleg } = setup();
    const event = containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: 1 });
    event.podSandboxStatus!.metadata = undefined;
    pleg.processEvent(event);
    expect(cache.uids()).toEqual([]);
    expect(drain(events)).toEqual([]);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "warn", containerID: "c1" }));
  });

  test("observes the latency from the event's creation and moves the running gauges", async () => {
    const { clock, metrics, pleg } = setup();
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now() - 20, containers: [running("c1")] }));
    expect(await histogramCount(metrics.eventedPlegConnectionLatency)).toBe(1);
    const { values } = await metrics.eventedPlegConnectionLatency.get();
    expect(values.find((v) => v.metricName?.endsWith("_sum"))!.value).toBeCloseTo(0.02, 6);
    expect(await metricValue(metrics.runningPods)).toBe(1);
    expect(await metricValue(metrics.runningContainers, { container_state: "running" })).toBe(1);

    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STOPPED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), sandboxReady: false, containers: [exited("c1")] }));
    expect(await metricValue(metrics.runningPods)).toBe(0);
    expect(await metricValue(metrics.runningContainers, { container_state: "running" })).toBe(0);
    expect(await metricValue(metrics.runningContainers, { container_state: "exited" })).toBe(1);
  });

  test("a full channel discards and counts the event", async () => {
    const { clock, events, metrics, pleg } = setup(1);
    events.trySend({ id: "x", type: "ContainerStarted", data: "x" });
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [running("c1")] }));
    expect(await metricValue(metrics.plegDiscardEvents)).toBe(1);
  });
});

describe("kubelet_pleg_last_seen_seconds moves where the PLEG works, never when /healthz asks", () => {
  test("each processed event sets it to now; health checks leave it alone", async () => {
    const { clock, metrics, pleg } = setup();
    await clock.advance(42_000);
    pleg.processEvent(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [running("c1")] }));
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(clock.now() / 1000));
    const seen = clock.now();
    await clock.advance(600_000);
    expect(pleg.healthy()).toEqual({ ok: true });
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(seen / 1000));
  });

  test("each global cache update (evented mode on a quiet node) sets it", async () => {
    const { clock, metrics, pleg } = setup();
    const stop = new AbortController();
    const loop = pleg.runGlobalCacheUpdates(5000, stop.signal, Promise.resolve());
    await clock.advance(0);
    await clock.advance(15_000);
    expect(await metricValue(metrics.plegLastSeen)).toBe(Math.floor(clock.now() / 1000));
    stop.abort();
    await loop;
  });
});

describe("healthy and the global cache timestamp", () => {
  test("is unhealthy only while the event channel is full", () => {
    const { events, pleg } = setup(2);
    expect(pleg.healthy()).toEqual({ ok: true });
    events.trySend({ id: "a", type: "ContainerStarted", data: "1" });
    events.trySend({ id: "a", type: "ContainerStarted", data: "2" });
    expect(pleg.healthy()).toEqual({ ok: false, message: "EventedPLEG: pleg event channel capacity is full with 2 events" });
  });

  test("moves the cache's global timestamp every period, releasing getNewerThan waiters", async () => {
    const { clock, cache, pleg } = setup();
    const stop = new AbortController();
    const loop = pleg.runGlobalCacheUpdates(5000, stop.signal, Promise.resolve());
    await clock.advance(0);
    const start = clock.now();
    let released = false;
    void cache.getNewerThan("u1", start).then(() => (released = true));
    await clock.advance(4999);
    expect(released).toBe(false);
    await clock.advance(1);
    expect(released).toBe(true);
    stop.abort();
    await loop;
    expect(clock.pending).toBe(0);
  });

  test("does not move the global timestamp before the cache is filled, then moves it at once", async () => {
    const { clock, cache, pleg } = setup();
    const filled = Promise.withResolvers<void>();
    const stop = new AbortController();
    const loop = pleg.runGlobalCacheUpdates(5000, stop.signal, filled.promise);
    await clock.advance(12_000);
    expect(cache.timestamp).toBe(0);
    filled.resolve();
    await clock.advance(0);
    expect(cache.timestamp).toBe(clock.now());
    await clock.advance(5000);
    expect(cache.timestamp).toBe(clock.now());
    stop.abort();
    await loop;
  });

  test("stops waiting for the cache when the signal aborts first", async () => {
    const { clock, cache, pleg } = setup();
    const stop = new AbortController();
    const loop = pleg.runGlobalCacheUpdates(5000, stop.signal, new Promise<void>(() => {}));
    stop.abort();
    await loop;
    expect(cache.timestamp).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
