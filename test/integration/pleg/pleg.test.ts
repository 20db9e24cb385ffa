// The PLEG against the fake CRI over a real gRPC socket, on real time with short periods.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CriClient } from "../../../src/cri/index.ts";
import { realClock } from "../../../src/lib/index.ts";
import { createMetrics, type Metrics } from "../../../src/metrics/index.ts";
import { createPleg, PodCache, type Pleg } from "../../../src/pleg/index.ts";
import type { PlegOptions } from "../../../src/pleg/options.ts";
import { runtimeViews } from "../../../src/runtime/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { client, createPod, nextEvent, watchedLogger } from "./helpers.ts";

let fake: FakeCri;
let cri: CriClient;
let pleg: Pleg | undefined;
let metrics: Metrics;
let cache: PodCache;
let log: ReturnType<typeof watchedLogger>;

beforeEach(async () => {
  fake = await startFakeCri();
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
  pleg = createPleg({ runtime: runtimeViews(cri), cri, cache, clock: realClock, log, metrics, eventedEnabled }, options);
  pleg.start();
  return pleg;
}

const value = async (m: { get(): Promise<{ values: { value: number }[] }> }) => (await m.get()).values[0]?.value ?? 0;
const switchedTo = (mode: string) => (l: Record<string, unknown>) => l.msg === "PLEG switched to " + mode + " mode";
/** Relists only: the unfiltered ListPodSandbox of getPods, not the per-pod status lookups. */
const relistCalls = () => fake.calls.filter((c) => c.method === "ListPodSandbox" && !(c.request as { filter?: unknown }).filter);

async function detectExit(p: Pleg, containerId: string): Promise<number> {
  const started = performance.now();
  fake.exitContainer(containerId, 1);
  await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === containerId, 3000);
  return performance.now() - started;
}

describe("detection latency", () => {
  test("evented mode sees a container exit in well under 100 ms, relisting within one period", async () => {
    const pod = await createPod(cri, "web", 2);
    const evented = start(true);
    await fake.events.whenSubscribers(1);
    const eventedMs = await detectExit(evented, pod.containerIds[0]!);
    expect(eventedMs).toBeLessThan(100);
    expect(cache.get(pod.uid).status.containerStatuses.find((c) => c.id === pod.containerIds[0])?.state).toBe("exited");
    await evented.stop();

    const generic = start(false, { genericRelist: { periodMs: 200, thresholdMs: 10_000 } });
    // The first relist reports what is running; after it, the next exit is a change.
    await nextEvent(generic.events, (e) => e.data === pod.containerIds[1] && e.type === "ContainerStarted");
    const genericMs = await detectExit(generic, pod.containerIds[1]!);
    expect(genericMs).toBeLessThan(200 + 300);
    expect(cache.get(pod.uid).status.containerStatuses.find((c) => c.id === pod.containerIds[1])?.state).toBe("exited");
  });
});

describe("falling back and coming back", () => {
  test("five refused streams switch to relisting every second, with the kubelet's counters", async () => {
    fake.events.unimplemented = true;
    const p = start(true, { reprobeInitialMs: 60_000 });
    const line = await log.when(switchedTo("generic"));
    const switchedAt = performance.now();
    expect(line.reason).toContain("UNIMPLEMENTED");
    expect(fake.callNames().filter((m) => m === "GetContainerEvents")).toHaveLength(5);
    expect(await value(metrics.eventedPlegConnectionErrors)).toBe(5);
    expect(await value(metrics.eventedPlegConnectionSuccess)).toBe(0);
    expect(p.mode()).toBe("generic");
    expect(p.status().relistPeriodMs).toBe(1000);
    const before = relistCalls().length;
    await fake.whenCalled("ListPodSandbox", fake.callNames().filter((m) => m === "ListPodSandbox").length + 1);
    const waited = performance.now() - switchedAt;
    expect(relistCalls().length).toBe(before + 1);
    expect(waited).toBeGreaterThan(900);
    expect(waited).toBeLessThan(1500);
    expect(fake.callNames().filter((m) => m === "GetContainerEvents")).toHaveLength(5);
  });

  test("once the runtime streams again, bunlet returns to evented mode", async () => {
    const pod = await createPod(cri, "api");
    fake.events.unimplemented = true;
    const p = start(true, { reprobeInitialMs: 100, reprobeMaxMs: 400, reprobeStableMs: 150 });
    await log.when(switchedTo("generic"));
    fake.events.unimplemented = false;
    const back = await log.when(switchedTo("evented"), 5000);
    expect(back.reason).toBe("a GetContainerEvents stream stayed up for 150ms");
    expect(p.mode()).toBe("evented");
    expect(p.status().relistPeriodMs).toBe(300_000);
    expect(await value(metrics.eventedPlegConnectionSuccess)).toBe(1);
    expect((await metrics.plegMode.get()).values.find((v) => v.labels.mode === "evented")?.value).toBe(1);
    // Exits are now seen through the stream again.
    expect(await detectExit(p, pod.containerIds[0]!)).toBeLessThan(100);
  });

  test("a stream that drops after an event is resumed, and a relist catches what it missed", async () => {
    const pod = await createPod(cri, "db", 2);
    const p = start(true, { streamEstablishedMs: 50 });
    const [first, second] = pod.containerIds as [string, string];
    await fake.events.whenSubscribers(1);
    await nextEvent(p.events, (e) => e.type === "ContainerStarted" && e.data === second);
    fake.events.dropAfter = 1;
    fake.exitContainer(first, 1); // delivered, then the stream drops
    fake.exitContainer(second, 2); // published while no stream is open
    const { seen } = await nextEvent(p.events, (e) => e.type === "ContainerDied" && e.data === second);
    expect(seen.some((e) => e.type === "ContainerDied" && e.data === first)).toBe(true);
    await fake.events.whenSubscribers(1);
    expect(p.mode()).toBe("evented");
    expect(await value(metrics.eventedPlegConnectionErrors)).toBe(1);
    const states = cache.get(pod.uid).status.containerStatuses.map((c) => [c.id, c.state, c.exitCode]);
    expect(states).toContainEqual([first, "exited", 1]);
    expect(states).toContainEqual([second, "exited", 2]);
  });
});
