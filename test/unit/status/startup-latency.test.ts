import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import type { Pod } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { PodStartupLatencyTracker } from "../../../src/status/index.ts";
import { imagePullingMs } from "../../../src/status/startup-latency.ts";
import { makePod } from "../../fixtures/pods.ts";

const T0 = Date.UTC(2026, 0, 1);

function pod(opts: { running?: boolean; startTime?: boolean; unschedulable?: boolean; volumes?: Pod["spec"]["volumes"]; hostNetwork?: boolean } = {}): Pod {
  return makePod({
    name: "p",
    namespace: "ns",
    metadata: { uid: "u1", creationTimestamp: new Date(T0).toISOString() },
    spec: { containers: [{ name: "c", image: "busybox" }], volumes: opts.volumes, hostNetwork: opts.hostNetwork },
    status: {
      ...(opts.startTime && { startTime: new Date(T0).toISOString() }),
      ...(opts.unschedulable && { conditions: [{ type: "PodScheduled", status: "False" }] }),
      containerStatuses: [{ name: "c", image: "busybox", imageID: "", ready: false, restartCount: 0, state: opts.running ? { running: { startedAt: new Date(T0).toISOString() } } : { waiting: { reason: "ContainerCreating" } } }],
    },
  });
}

function harness() {
  const clock = new FakeClock(T0);
  const metrics = createMetrics(new Registry());
  const tracker = new PodStartupLatencyTracker({ clock, log: createMemoryLogger(), metrics });
  const sums = async () => ({
    total: (await metrics.podStartTotalDuration.get()).values.filter((v) => v.metricName?.endsWith("_sum") || v.metricName?.endsWith("_count")).map((v) => v.value),
    sli: (await metrics.podStartSLIDuration.get()).values.filter((v) => v.metricName?.endsWith("_sum") || v.metricName?.endsWith("_count")).map((v) => v.value),
    firstNetwork: (await metrics.firstNetworkPodStartSLIDuration.get()).values.map((v) => v.value),
  });
  return { clock, tracker, sums };
}

/** The pod's life: seen at +1 s, pulls from +2 to +5 s, status with it running accepted at +6 s, seen so at +7 s. */
async function start(h: ReturnType<typeof harness>, p: (running: boolean) => Pod) {
  h.tracker.observedPodOnWatch(p(false), T0 + 1000);
  await h.clock.advance(2000);
  h.tracker.recordImageStartedPulling("u1");
  await h.clock.advance(3000);
  h.tracker.recordImageFinishedPulling("u1");
  await h.clock.advance(1000);
  h.tracker.recordStatusUpdated(p(false));
  h.tracker.recordStatusUpdated(p(true));
  h.tracker.observedPodOnWatch(p(true), T0 + 7000);
  h.tracker.observedPodOnWatch(p(true), T0 + 9000);
}

describe("the pod startup SLI (pod_startup_latency_tracker.go)", () => {
  test("creation to started-and-watched is the total; less the pulls it is the SLI, and the first network pod's", async () => {
    const h = harness();
    await start(h, (running) => pod({ running }));
    // [sum, count] each.
    expect(await h.sums()).toEqual({ total: [7, 1], sli: [4, 1], firstNetwork: [4] });
  });

  test("a watch event with the started status ahead of the patch's answer counts from its own time", async () => {
    const h = harness();
    h.tracker.observedPodOnWatch(pod(), T0 + 1000);
    h.tracker.observedPodOnWatch(pod({ running: true }), T0 + 4000);
    expect(await h.sums()).toEqual({ total: [0, 0], sli: [0, 0], firstNetwork: [0] });
    await h.clock.advance(5000);
    h.tracker.recordStatusUpdated(pod({ running: true }));
    h.tracker.observedPodOnWatch(pod({ running: true }), T0 + 9000);
    expect(await h.sums()).toEqual({ total: [4, 1], sli: [4, 1], firstNetwork: [4] });
  });

  test("a stateful pod (a hostPath volume) counts in the total only", async () => {
    const h = harness();
    await start(h, (running) => pod({ running, volumes: [{ name: "v", hostPath: { path: "/tmp" } }] }));
    expect(await h.sums()).toEqual({ total: [7, 1], sli: [0, 0], firstNetwork: [0] });
  });

  test("a host-network pod counts in the SLI but is not the first network pod", async () => {
    const h = harness();
    await start(h, (running) => pod({ running, hostNetwork: true }));
    expect(await h.sums()).toEqual({ total: [7, 1], sli: [4, 1], firstNetwork: [0] });
  });

  test("a pod first seen with a start time (adopted after a restart) or unschedulable is never measured", async () => {
    for (const [first, later] of [
      [pod({ startTime: true }), pod({ startTime: true, running: true })],
      // Once excluded a pod stays so, even when it is scheduled after all.
      [pod({ unschedulable: true }), pod({ running: true })],
    ] as const) {
      const h = harness();
      h.tracker.observedPodOnWatch(first, T0 + 1000);
      h.tracker.observedPodOnWatch(later, T0 + 2000);
      h.tracker.recordStatusUpdated(later);
      h.tracker.observedPodOnWatch(later, T0 + 3000);
      expect(await h.sums()).toEqual({ total: [0, 0], sli: [0, 0], firstNetwork: [0] });
    }
  });

  test("init containers' run time is left out of the SLI", async () => {
    const h = harness();
    h.tracker.observedPodOnWatch(pod(), T0);
    h.tracker.recordInitContainerStarted("u1", T0 + 1000);
    h.tracker.recordInitContainerFinished("u1", T0 + 3500);
    // A second report of the same finish adds nothing.
    h.tracker.recordInitContainerFinished("u1", T0 + 3500);
    await h.clock.advance(5000);
    h.tracker.recordStatusUpdated(pod({ running: true }));
    h.tracker.observedPodOnWatch(pod({ running: true }), T0 + 6000);
    expect(await h.sums()).toEqual({ total: [6, 1], sli: [3.5, 1], firstNetwork: [3.5] });
  });

  test.each([
    [[], 0],
    [[{ start: 0, end: 10 }], 10],
    [[{ start: 0, end: 10 }, { start: 5, end: 15 }, { start: 20, end: 25 }], 20],
    [[{ start: 0, end: 10 }, { start: 2, end: 8 }], 10],
  ])("overlapping pulls count once: %j → %d ms", (sessions, ms) => {
    expect(imagePullingMs(sessions)).toBe(ms);
  });
});
