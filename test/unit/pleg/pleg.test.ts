import { describe, expect, test } from "bun:test";
import { ContainerEventType, ContainerState } from "../../../src/cri/index.ts";
import { FakeClock, createMemoryLogger } from "../../../src/lib/testing.ts";
import { createPleg, PodCache } from "../../../src/pleg/index.ts";
import { containerEvent, drain, metricValue, podStatus, ref, runtimePod, ScriptedEventSource, ScriptedRuntime, testMetrics } from "./helpers.ts";

function setup(eventedEnabled = true) {
  const clock = new FakeClock();
  const runtime = new ScriptedRuntime();
  const source = new ScriptedEventSource();
  const cache = new PodCache();
  const log = createMemoryLogger();
  const metrics = testMetrics();
  const pleg = createPleg({ runtime, cri: source, cache, clock, log, metrics, eventedEnabled });
  /** Lets chains of stream attempts and relists run to quiescence without moving time. */
  const settle = () => clock.settle();
  const switches = () => log.lines.filter((l) => String(l.msg).startsWith("PLEG switched"));
  return { clock, runtime, source, cache, log, metrics, pleg, settle, switches };
}

describe("falling back to relisting", () => {
  test("five refused streams in a row switch to generic at 1 s, with the counters and one info line", async () => {
    const { clock, runtime, source, metrics, pleg, settle, switches } = setup();
    pleg.start();
    expect(pleg.mode()).toBe("evented");
    await settle();
    expect(source.attempts).toBe(5);
    expect(pleg.mode()).toBe("generic");
    expect(pleg.status()).toMatchObject({ mode: "generic", relistPeriodMs: 1000, nextProbeAt: clock.now() + 30_000 });
    expect(await metricValue(metrics.eventedPlegConnectionErrors)).toBe(5);
    expect(await metricValue(metrics.eventedPlegConnectionSuccess)).toBe(0);
    // The first relist, then one forced by every failure.
    expect(runtime.listCalls).toBe(6);
    expect(switches()).toEqual([
      expect.objectContaining({ level: "info", mode: "generic", relistPeriod: "1s", reason: expect.stringContaining("failed 5 times in a row") }),
    ]);
    expect(await metricValue(metrics.plegMode, { mode: "generic" })).toBe(1);
    expect(await metricValue(metrics.plegMode, { mode: "evented" })).toBe(0);

    await clock.advance(1000);
    expect(runtime.listCalls).toBe(7);
    await clock.advance(3000);
    expect(runtime.listCalls).toBe(10);
    await pleg.stop();
  });

  test("a stream that connects between failures resets the count", async () => {
    const { clock, source, metrics, pleg, settle } = setup();
    source.accept = true;
    pleg.start();
    await settle();
    for (let round = 0; round < 3; round++) {
      // Four breaks in a row, each followed by a stream that only stays up briefly...
      for (let i = 0; i < 4; i++) {
        source.break();
        await settle();
      }
      // ...then one that stays open for the established time.
      await clock.advance(1000);
    }
    expect(pleg.mode()).toBe("evented");
    expect(await metricValue(metrics.eventedPlegConnectionErrors)).toBe(12);
    expect(await metricValue(metrics.eventedPlegConnectionSuccess)).toBe(3);
    await pleg.stop();
  });
});

describe("coming back to evented mode", () => {
  test("re-probes after 30 s, doubling, and switches back once a stream stays up", async () => {
    const { clock, source, metrics, pleg, settle, switches } = setup();
    pleg.start();
    await settle();
    expect(source.attempts).toBe(5);

    await clock.advance(29_999);
    expect(source.attempts).toBe(5);
    await clock.advance(1);
    expect(source.attempts).toBe(6); // refused: next in 60 s
    await clock.advance(60_000);
    expect(source.attempts).toBe(7); // refused: next in 120 s
    expect(pleg.status().nextProbeAt).toBe(clock.now() + 120_000);

    source.accept = true;
    await clock.advance(120_000);
    expect(source.attempts).toBe(8);
    expect(source.open).toBe(true);
    await clock.advance(9_999);
    expect(pleg.mode()).toBe("generic");
    await clock.advance(1);
    expect(pleg.mode()).toBe("evented");
    expect(pleg.status()).toMatchObject({ relistPeriodMs: 300_000, streamFailures: 0 });
    expect(await metricValue(metrics.eventedPlegConnectionSuccess)).toBe(1);
    expect(await metricValue(metrics.eventedPlegConnectionErrors)).toBe(7);
    expect(await metricValue(metrics.plegMode, { mode: "evented" })).toBe(1);
    expect(switches().map((l) => [l.mode, l.reason])).toEqual([
      ["generic", expect.stringContaining("failed 5 times")],
      ["evented", "a GetContainerEvents stream stayed up for 10s"],
    ]);
    // The probe stream is the one in use: no reconnect.
    expect(source.attempts).toBe(8);
    await pleg.stop();
  });

  test("a probe that drops before it is stable stays in generic mode and backs off", async () => {
    const { clock, source, pleg, settle } = setup();
    pleg.start();
    await settle();
    source.accept = true;
    await clock.advance(30_000);
    expect(source.open).toBe(true);
    await clock.advance(5_000);
    source.break();
    await settle();
    expect(pleg.mode()).toBe("generic");
    expect(pleg.status().nextProbeAt).toBe(clock.now() + 60_000);
    await pleg.stop();
  });
});

describe("evented mode", () => {
  test("stream events reach the cache and the channel; the generic PLEG relists only every 300 s", async () => {
    const { clock, runtime, source, cache, pleg, settle, metrics } = setup();
    source.accept = true;
    pleg.start();
    await settle();
    expect(runtime.listCalls).toBe(1);
    source.push(containerEvent({ type: ContainerEventType.CONTAINER_STOPPED_EVENT, containerId: "c1", uid: "u1", createdAtMs: clock.now(), containers: [{ id: "c1", name: "app", state: ContainerState.CONTAINER_EXITED }] }));
    await settle();
    expect(drain(pleg.events)).toEqual([{ id: "u1", type: "ContainerDied", data: "c1" }]);
    expect(cache.get("u1").status.containerStatuses[0]!.state).toBe("exited");
    // The first event proves the stream works, before the established time has passed.
    expect(await metricValue(metrics.eventedPlegConnectionSuccess)).toBe(1);
    await clock.advance(299_999);
    expect(runtime.listCalls).toBe(1);
    await clock.advance(1);
    expect(runtime.listCalls).toBe(2);
    await pleg.stop();
  });

  test("a dropped stream forces a relist that reconciles what happened meanwhile, then reconnects", async () => {
    const { clock, runtime, source, pleg, settle } = setup();
    runtime.pods = [runtimePod("u1", [ref("c1", "running")])];
    source.accept = true;
    pleg.start();
    await settle();
    drain(pleg.events);
    // The container exits while the stream is down: no event will ever say so.
    runtime.pods = [runtimePod("u1", [ref("c1", "exited")])];
    source.break();
    await settle();
    expect(drain(pleg.events)).toEqual([{ id: "u1", type: "ContainerDied", data: "c1" }]);
    expect(source.attempts).toBe(2);
    expect(source.open).toBe(true);
    expect(pleg.mode()).toBe("evented");
    await clock.advance(0);
    await pleg.stop();
  });

  test("moves the cache timestamp every 5 s after the first relist, even when later relists fail", async () => {
    const { clock, runtime, source, cache, pleg, settle } = setup();
    source.accept = true;
    pleg.start();
    await settle();
    const t0 = clock.now();
    expect(cache.timestamp).toBe(t0);
    runtime.failList = true;
    await pleg.relistNow();
    await clock.advance(5000);
    expect(cache.timestamp).toBe(t0 + 5000);
    await pleg.stop();
  });

  test("no global cache timestamp before the first successful relist: a worker never reads an empty status for a running pod", async () => {
    const { clock, runtime, source, cache, pleg, settle } = setup();
    runtime.failList = true;
    runtime.pods = [runtimePod("u1", [ref("c1", "running")], [ref("sb1", "running")])];
    const sandbox = { id: "sb1", state: "ready", createdAt: 1, attempt: 0, ips: [], hostNetwork: false, name: "pod-u1", namespace: "default", uid: "u1", labels: {}, annotations: {} } as const;
    runtime.statuses.set("u1", podStatus("u1", { sandboxStatuses: [{ ...sandbox, ips: [] }] }));
    source.accept = true;
    pleg.start();
    await settle();
    // A pod worker's first sync waits for anything newer than "never".
    let seen: string[] | undefined;
    void cache.getNewerThan("u1", 0).then((e) => (seen = e.status.sandboxStatuses.map((s) => s.id)));
    await clock.advance(12_000);
    expect(cache.timestamp).toBe(0);
    expect(seen).toBeUndefined();
    // The runtime answers: the relist adopts the running pod, and only then does time move.
    runtime.failList = false;
    await pleg.relistNow();
    await settle();
    expect(seen).toEqual(["sb1"]);
    const relisted = cache.timestamp;
    expect(relisted).toBe(clock.now());
    await clock.advance(5000);
    expect(cache.timestamp).toBe(relisted + 5000);
    await pleg.stop();
  });
});

describe("health and wiring", () => {
  test("health names the PLEG that fails", async () => {
    const { clock, source, pleg, settle } = setup();
    expect(pleg.healthy()).toEqual({ ok: false, message: "generic: pleg has yet to be successful" });
    source.accept = true;
    pleg.start();
    await settle();
    expect(pleg.healthy()).toEqual({ ok: true });
    for (let i = 0; i < 1000; i++) pleg.events.trySend({ id: "u", type: "ContainerStarted", data: String(i) });
    expect(pleg.healthy()).toEqual({ ok: false, message: "evented: EventedPLEG: pleg event channel capacity is full with 1000 events" });
    drain(pleg.events);
    // In evented mode the relist threshold is 10 min.
    await clock.advance(300_000);
    expect(pleg.healthy().ok).toBe(true);
    await pleg.stop();
  });

  test("with the gate off, nothing streams and relisting runs every second", async () => {
    const { clock, runtime, source, pleg, settle, metrics } = setup(false);
    pleg.start();
    await settle();
    await clock.advance(60_000);
    expect(source.attempts).toBe(0);
    expect(pleg.mode()).toBe("generic");
    expect(runtime.listCalls).toBe(61);
    expect(await metricValue(metrics.plegMode, { mode: "generic" })).toBe(1);
    await pleg.stop();
  });

  test("stop ends the stream, the relist loop and every timer", async () => {
    const { clock, source, pleg, settle } = setup();
    source.accept = true;
    pleg.start();
    await settle();
    expect(source.open).toBe(true);
    await pleg.stop();
    expect(source.open).toBe(false);
    expect(clock.pending).toBe(0);
  });

  test("a pod worker's relist request reads the pod while relisting (gate off, or fallen back), not while the stream reports", async () => {
    for (const how of ["gate off", "fallen back", "evented"] as const) {
      const { clock, runtime, source, pleg, settle } = setup(how !== "gate off");
      source.accept = how === "evented";
      pleg.start();
      await settle();
      expect(pleg.mode()).toBe(how === "evented" ? "evented" : "generic");
      pleg.requestPodRelist("a");
      await clock.advance(1);
      await settle();
      expect(runtime.podCalls).toEqual(how === "evented" ? [] : ["a"]);
      await pleg.stop();
    }
  });

  test("relistNow runs a relist on demand", async () => {
    const { runtime, pleg } = setup(false);
    await pleg.relistNow();
    expect(runtime.listCalls).toBe(1);
  });
});
