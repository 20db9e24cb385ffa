/**
 * The PLEG against a real containerd 1.6, which answers GetContainerEvents with UNIMPLEMENTED:
 * the path users of Debian's containerd get. The evented PLEG must give up after exactly five
 * attempts, relisting must then run about once a second, and a container killed behind bunlet's
 * back must be noticed within about two relist periods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCriClient, type ContainerEventResponse, type CriClient } from "../../../src/cri/index.ts";
import { realClock } from "../../../src/lib/index.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createPleg, PodCache, type Pleg } from "../../../src/pleg/index.ts";
import type { ContainerEventSource, PodLister } from "../../../src/pleg/deps.ts";
import { runtimeViews } from "../../../src/runtime/index.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { runCommand } from "../../harness/images.ts";
import { createPod, nextEvent, watchedLogger } from "../../integration/pleg/helpers.ts";

let ctd: TestContainerd;
let cri: CriClient;
let pleg: Pleg;
let switchedAt = 0;
const metrics = createMetrics();
const cache = new PodCache();
const log = watchedLogger();
const streamAttempts: number[] = [];
const relistStarts: number[] = [];
let relisted: (() => void) | undefined;

/** Resolves once `count` relists have started in total. */
function whenRelists(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (relistStarts.length < count) return;
      relisted = undefined;
      resolve();
    };
    relisted = check;
    check();
  });
}

beforeAll(async () => {
  ctd = await startTestContainerd({ name: "pleg-e2e" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  const lister = runtimeViews(cri);
  const runtime: PodLister = {
    getPods: (opts) => {
      relistStarts.push(performance.now());
      relisted?.();
      return lister.getPods(opts);
    },
    getPodStatus: (...args) => lister.getPodStatus(...args),
  };
  const events: ContainerEventSource = {
    getContainerEvents(signal): AsyncIterable<ContainerEventResponse> {
      streamAttempts.push(performance.now());
      return cri.runtime.getContainerEvents({}, { signal });
    },
  };
  pleg = createPleg({ runtime, cri: events, cache, clock: realClock, log, metrics, eventedEnabled: true });
  pleg.start();
  await log.when((l) => l.msg === "PLEG switched to generic mode", 10_000);
  switchedAt = performance.now();
}, 120_000);

afterAll(async () => {
  await pleg?.stop();
  cri?.close();
  await ctd?.stop();
}, 60_000);

describe("PLEG on containerd 1.6", () => {
  test("falls back to relisting after exactly five GetContainerEvents attempts", async () => {
    const line = log.lines.find((l) => l.msg === "PLEG switched to generic mode")!;
    expect(line.reason).toContain("UNIMPLEMENTED");
    expect(streamAttempts).toHaveLength(5);
    expect((await metrics.eventedPlegConnectionErrors.get()).values[0]?.value).toBe(5);
    expect(pleg.mode()).toBe("generic");
    expect(pleg.status()).toMatchObject({ relistPeriodMs: 1000, nextProbeAt: expect.any(Number) });
  });

  test("then relists about once a second", async () => {
    const from = relistStarts.length;
    await whenRelists(from + 4);
    const starts = relistStarts.slice(from);
    const intervals = starts.slice(1).map((t, i) => t - starts[i]!);
    for (const ms of intervals) {
      expect(ms).toBeGreaterThan(900);
      expect(ms).toBeLessThan(1400);
    }
    expect(streamAttempts).toHaveLength(5);
    expect(pleg.healthy()).toEqual({ ok: true });
    expect(performance.now() - switchedAt).toBeGreaterThan(2500);
  }, 15_000);

  test("notices a container killed behind its back within about two relist periods", async () => {
    const pod = await createPod(cri, "victim");
    const id = pod.containerIds[0]!;
    await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === id, 3000);
    const killed = performance.now();
    await runCommand(["ctr", "--address", ctd.socketPath, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id]);
    await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 2500);
    const detectedMs = performance.now() - killed;
    expect(detectedMs).toBeLessThan(2200);
    const status = cache.get(pod.uid).status.containerStatuses.find((c) => c.id === id);
    expect(status).toMatchObject({ state: "exited", exitCode: 137 });
  }, 15_000);
});
