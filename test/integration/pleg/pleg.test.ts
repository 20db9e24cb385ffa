// The PLEG against the fake CRI over a real gRPC socket. Its periods run on a FakeClock shared
// with the fake, so every assertion is about order and cause (which relist or stream event
// reported an exit, when a relist is due), never about how fast a loaded machine was.
// How fast: scripts/bench-pleg.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CriClient } from "../../../src/cri/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics, type Metrics } from "../../../src/metrics/index.ts";
import { createPleg, PodCache, type Pleg } from "../../../src/pleg/index.ts";
import type { PlegOptions } from "../../../src/pleg/options.ts";
import { runtimeViews } from "../../../src/runtime/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { client, createPod, nextEvent, watchedLogger } from "./helpers.ts";

let clock: FakeClock;
let fake: FakeCri;
let cri: CriClient;
let pleg: Pleg | undefined;
let metrics: Metrics;
let cache: PodCache;
let log: ReturnType<typeof watchedLogger>;

beforeEach(async () => {
  clock = new FakeClock();
  fake = await startFakeCri({ clock });
  cri = client(fake.endpoint);
  metrics = createMetrics();
  cache = new PodCache();
  log = watchedLogger();
});

afterEach(async () => {
  await pleg?.stop();
  pleg = undefined;
  cri.close();
  await fake.stop();
});

function start(eventedEnabled: boolean, options: Partial<PlegOptions> = {}): Pleg {
  pleg = createPleg({ runtime: runtimeViews(cri), cri, cache, clock, log, metrics, eventedEnabled }, options);
  pleg.start();
  return pleg;
}

/** A bound for waits on real I/O (gRPC over the socket): a guard against hangs, not a speed claim. */
const io = () => AbortSignal.timeout(10_000);
const value = async (m: { get(): Promise<{ values: { value: number }[] }> }) => (await m.get()).values[0]?.value ?? 0;
const switchedTo = (mode: string) => (l: Record<string, unknown>) => l.msg === "PLEG switched to " + mode + " mode";
/** Relists only: the unfiltered ListPodSandbox of getPods, not the per-pod status lookups. */
const relistCalls = () => fake.calls.filter((c) => c.method === "ListPodSandbox" && !(c.request as { filter?: unknown }).filter).length;
const streamCalls = () => fake.callNames().filter((m) => m === "GetContainerEvents").length;
const stateOf = (uid: string, id: string) => cache.get(uid).status.containerStatuses.find((c) => c.id === id)?.state;

describe("how an exit reaches the PLEG", () => {
  test("evented mode: through the event stream, with no relist in between", async () => {
    const pod = await createPod(cri, "web", 2);
    const p = start(true);
    await fake.events.whenSubscribers(1, io());
    await nextEvent(p.events, (e) => e.type === "ContainerStarted" && e.data === pod.containerIds[1]);
    const relists = relistCalls();
    fake.exitContainer(pod.containerIds[0]!, 1);
    await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === pod.containerIds[0]);
    expect(relistCalls()).toBe(relists);
    expect(stateOf(pod.uid, pod.containerIds[0]!)).toBe("exited");
  });

  test("generic mode: by the next relist, due one period after the previous one ended", async () => {
    const pod = await createPod(cri, "web", 2);
    const p = start(false, { genericRelist: { periodMs: 200, thresholdMs: 10_000 } });
    // The first relist reports what is running; after it, the next exit is a change.
    await nextEvent(p.events, (e) => e.data === pod.containerIds[1] && e.type === "ContainerStarted");
    const due = await clock.whenTimer(200, io());
    expect(due).toBe(clock.now() + 200);
    const relists = relistCalls();
    fake.exitContainer(pod.containerIds[1]!, 1);
    await clock.advance(199);
    expect(await clock.whenTimer(200)).toBe(due); // not due yet: still waiting
    expect(relistCalls()).toBe(relists);
    await clock.advance(1);
    const { seen } = await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === pod.containerIds[1]);
    expect(seen.filter((e) => e.type === "ContainerDied")).toHaveLength(1);
    expect(relistCalls()).toBe(relists + 1);
    expect(stateOf(pod.uid, pod.containerIds[1]!)).toBe("exited");
  });
});

describe("falling back and coming back", () => {
  test("five refused streams switch to relisting every second, with the kubelet's counters", async () => {
    fake.events.unimplemented = true;
    const p = start(true, { reprobeInitialMs: 60_000 });
    const line = await log.when(switchedTo("generic"));
    expect(line.reason).toContain("UNIMPLEMENTED");
    expect(streamCalls()).toBe(5);
    expect(await value(metrics.eventedPlegConnectionErrors)).toBe(5);
    expect(await value(metrics.eventedPlegConnectionSuccess)).toBe(0);
    expect(p.mode()).toBe("generic");
    expect(p.status().relistPeriodMs).toBe(1000);
    // The first relist and one forced by every refused stream, all at this instant: the next is
    // due one period after the last of them, and each after that one period later.
    expect(relistCalls()).toBe(6);
    for (let n = 7; n <= 9; n++) {
      const due = await clock.whenTimer(1000, io());
      expect(due).toBe(clock.now() + 1000);
      await clock.advance(999);
      expect(relistCalls()).toBe(n - 1);
      await clock.advance(1);
      await fake.whenCalled("ListPodSandbox", fake.callNames().filter((m) => m === "ListPodSandbox").length + 1, io());
      expect(relistCalls()).toBe(n);
    }
    expect(streamCalls()).toBe(5);
    expect(p.status().nextProbeAt).toBe(clock.now() - 3000 + 60_000);
  });

  test("once the runtime streams again, bunlet returns to evented mode", async () => {
    const pod = await createPod(cri, "api");
    fake.events.unimplemented = true;
    const p = start(true, { reprobeInitialMs: 100, reprobeMaxMs: 400, reprobeStableMs: 150 });
    await log.when(switchedTo("generic"));
    fake.events.unimplemented = false;
    // The re-probe is due 100 ms after the fallback; the stream must then stay up 150 ms.
    expect(await clock.whenTimer(100, io())).toBe(clock.now() + 100);
    await clock.advance(100);
    await fake.events.whenSubscribers(1, io());
    expect(streamCalls()).toBe(6);
    expect(await clock.whenTimer(150, io())).toBe(clock.now() + 150);
    expect(p.mode()).toBe("generic");
    await clock.advance(149);
    expect(p.mode()).toBe("generic");
    await clock.advance(1);
    const back = await log.when(switchedTo("evented"));
    expect(back.reason).toBe("a GetContainerEvents stream stayed up for 150ms");
    expect(p.mode()).toBe("evented");
    expect(p.status().relistPeriodMs).toBe(300_000);
    expect(await value(metrics.eventedPlegConnectionSuccess)).toBe(1);
    expect((await metrics.plegMode.get()).values.find((v) => v.labels.mode === "evented")?.value).toBe(1);
    // Exits are now seen through the stream again, with no relist in between.
    const relists = relistCalls();
    fake.exitContainer(pod.containerIds[0]!, 1);
    await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === pod.containerIds[0]);
    expect(relistCalls()).toBe(relists);
  });

  test("a stream that drops after an event is resumed, and a relist catches what it missed", async () => {
    const pod = await createPod(cri, "db", 2);
    const p = start(true, { streamEstablishedMs: 50 });
    const [first, second] = pod.containerIds as [string, string];
    await fake.events.whenSubscribers(1, io());
    await nextEvent(p.events, (e) => e.type === "ContainerStarted" && e.data === second);
    const relists = relistCalls();
    fake.events.dropAfter = 1;
    fake.exitContainer(first, 1); // delivered, then the stream drops
    fake.exitContainer(second, 2); // published while no stream is open
    const { seen } = await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === second);
    expect(seen.some((e) => e.type === "ContainerDied" && e.data === first)).toBe(true);
    // The second exit was found by the relist the failed stream forced (no time has passed).
    expect(relistCalls()).toBe(relists + 1);
    await fake.events.whenSubscribers(1, io());
    expect(p.mode()).toBe("evented");
    expect(await value(metrics.eventedPlegConnectionErrors)).toBe(1);
    const states = cache.get(pod.uid).status.containerStatuses.map((c) => [c.id, c.state, c.exitCode]);
    expect(states).toContainEqual([first, "exited", 1]);
    expect(states).toContainEqual([second, "exited", 2]);
  });
});
