// A pod worker waiting for status newer than its last sync: in evented mode the PLEG reads that
// pod again at once; in relisting mode it waits for the next relist, as the kubelet does.
import { describe, expect, test } from "bun:test";
import { ContainerEventType, ContainerState } from "../../../src/cri/index.ts";
import { FakeClock, createMemoryLogger } from "../../../src/lib/testing.ts";
import { createPleg, PodCache } from "../../../src/pleg/index.ts";
import { containerEvent, podStatus, ScriptedEventSource, ScriptedRuntime, testMetrics } from "./helpers.ts";

function setup(eventedEnabled: boolean) {
  const clock = new FakeClock();
  const runtime = new ScriptedRuntime();
  const source = new ScriptedEventSource();
  source.accept = true;
  const cache = new PodCache();
  const pleg = createPleg({ runtime, cri: source, cache, clock, log: createMemoryLogger(), metrics: testMetrics(), eventedEnabled });
  /** Lets chains of stream attempts and relists run to quiescence without moving time. */
  const settle = () => clock.settle();
  return { clock, runtime, source, cache, pleg, settle };
}

describe("the cache's wait hook", () => {
  test("is told about a caller that has to wait, not one answered at once", async () => {
    const cache = new PodCache();
    const waits: [string, number][] = [];
    cache.setWaitHook((uid, minTime) => waits.push([uid, minTime]));
    cache.set("a", podStatus("a"), undefined, 10);
    await cache.getNewerThan("a", 5);
    expect(waits).toEqual([]);
    const waiting = cache.getNewerThan("a", 20);
    expect(waits).toEqual([["a", 20]]);
    cache.set("a", podStatus("a"), undefined, 21);
    expect((await waiting).modified).toBe(21);
  });
});

describe("refreshing a pod for a waiting worker", () => {
  test("evented mode reads the pod again and answers the worker without waiting for the global update", async () => {
    const { clock, runtime, source, cache, pleg, settle } = setup(true);
    pleg.start();
    await settle();
    source.push(containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [{ id: "c1", name: "app", state: ContainerState.CONTAINER_RUNNING }] }));
    await settle();
    await clock.advance(10); // the worker's sync ends after the event's time
    const syncEnd = clock.now();
    runtime.statuses.set("u1", podStatus("u1", { name: "pod-u1", ips: ["10.0.0.1"] }));
    let answered = false;
    const waiting = cache.getNewerThan("u1", syncEnd).then((e) => ((answered = true), e));
    await settle();
    expect(answered).toBe(false); // the read must start after syncEnd...
    await clock.advance(1);
    const entry = await waiting;
    expect(entry.modified).toBe(syncEnd + 1); // ...and it is well before the 5 s global update
    expect(entry.status.ips).toEqual(["10.0.0.1"]);
    expect(runtime.statusCalls).toEqual(["u1"]);
    await pleg.stop();
  });

  test("a pod the cache cannot name is found by a relist", async () => {
    const { clock, runtime, cache, pleg, settle } = setup(true);
    pleg.start();
    await settle();
    const lists = runtime.listCalls;
    const waiting = cache.getNewerThan("ghost", clock.now());
    await clock.advance(1);
    await settle();
    expect(runtime.listCalls).toBe(lists + 1);
    // The relist moved the global timestamp past the worker's time: it gets the empty status.
    expect((await waiting).status.containerStatuses).toEqual([]);
    await pleg.stop();
  });

  test("relisting mode leaves the worker to the next relist, as the kubelet does", async () => {
    const { clock, runtime, cache, pleg, settle } = setup(false);
    cache.set("u1", podStatus("u1"), undefined, clock.now());
    pleg.start();
    await settle();
    const syncEnd = clock.now() + 1;
    await clock.advance(2);
    let answered = false;
    void cache.getNewerThan("u1", syncEnd).then(() => (answered = true));
    await settle();
    expect(answered).toBe(false);
    expect(runtime.statusCalls).toEqual([]);
    await clock.advance(1000);
    expect(answered).toBe(true);
    await pleg.stop();
  });
});
