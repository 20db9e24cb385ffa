// The two PLEGs write one cache: whichever observed the runtime later must win, whatever the
// order in which their writes arrive.
import { describe, expect, test } from "bun:test";
import { ContainerEventType, ContainerState } from "../../../src/cri/index.ts";
import { Channel, silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { GenericPleg, PodCache, type PodLifecycleEvent } from "../../../src/pleg/index.ts";
import { EventedPleg } from "../../../src/pleg/evented.ts";
import { containerEvent, drain, podStatus, ref, runtimePod, ScriptedRuntime, testMetrics } from "./helpers.ts";

function setup() {
  const clock = new FakeClock();
  const cache = new PodCache();
  const events = new Channel<PodLifecycleEvent>(1000);
  const runtime = new ScriptedRuntime();
  const metrics = testMetrics();
  const shared = { cache, events, clock, log: silentLogger, metrics };
  const generic = new GenericPleg({ ...shared, runtime, signal: new AbortController().signal }, { periodMs: 300_000, thresholdMs: 600_000 });
  const evented = new EventedPleg(shared);
  return { clock, cache, events, runtime, generic, evented };
}

const stopped = (uid: string, atMs: number) =>
  containerEvent({ type: ContainerEventType.CONTAINER_STOPPED_EVENT, containerId: "c1", uid, createdAtMs: atMs, containers: [{ id: "c1", name: "app", state: ContainerState.CONTAINER_EXITED }] });

describe("timestamp ordering when the generic and evented PLEGs race", () => {
  test("an event that happened before the relist read the runtime does not overwrite the relist", async () => {
    const { clock, cache, events, runtime, generic, evented } = setup();
    const eventTime = clock.now();
    await clock.advance(10);
    runtime.pods = [runtimePod("u1", [ref("c1", "exited")])];
    runtime.statuses.set("u1", podStatus("u1", { name: "from-relist" }));
    await generic.relist();
    drain(events);
    evented.processEvent(stopped("u1", eventTime)); // arrives late
    expect(cache.get("u1").status.name).toBe("from-relist");
    expect(cache.get("u1").modified).toBe(eventTime + 10);
    expect(drain(events)).toEqual([]);
  });

  test("a relist that read the runtime before the event does not overwrite the event", async () => {
    const { clock, cache, events, runtime, generic, evented } = setup();
    runtime.pods = [runtimePod("u1", [ref("c1", "running")])];
    runtime.statuses.set("u1", podStatus("u1", { name: "from-relist" }));
    // The relist stamps its read at the current time, then the status call is slow...
    let release!: () => void;
    const read = runtime.getPodStatus.bind(runtime);
    runtime.getPodStatus = async (...args) => {
      await new Promise<void>((r) => (release = r));
      return read(...args);
    };
    const relisting = generic.relist();
    await clock.advance(0);
    // ...meanwhile the container stops and its event is processed first.
    await clock.advance(5);
    evented.processEvent(stopped("u1", clock.now()));
    expect(drain(events).map((e) => e.type)).toEqual(["ContainerDied"]);
    release();
    await relisting;
    expect(cache.get("u1").status.containerStatuses[0]).toMatchObject({ id: "c1", state: "exited" });
    expect(cache.get("u1").modified).toBe(clock.now());
    // The relist lost, so it holds its events and keeps the change for the next relist.
    expect(drain(events)).toEqual([]);
  });
});
