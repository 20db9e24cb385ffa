/**
 * The PLEG against a real containerd of each version bunlet meets on Debian.
 *
 * containerd 1.6 answers GetContainerEvents with UNIMPLEMENTED: the path users of Debian 12's
 * containerd get. The evented PLEG must give up after exactly five attempts, relisting must then
 * keep running, never sooner than one period after the previous relist, and a container killed
 * behind bunlet's back must be reported by a relist that listed after the kill. Relist stamps are
 * the PLEG's own clock (Date.now), so the bounds are exact on a loaded machine; how close to one
 * second the rhythm is, and how fast a kill is seen, is measured by scripts/bench-pleg.ts.
 *
 * containerd 1.7 streams events: the PLEG stays evented, relists only at start-up (its safety net
 * is 300 s), learns of a killed container from the stream alone, and when containerd restarts
 * under it, relists at once and comes back to the stream.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCriClient, type ContainerEventResponse, type CriClient } from "../../../src/cri/index.ts";
import { realClock } from "../../../src/lib/index.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createPleg, PodCache, type Pleg } from "../../../src/pleg/index.ts";
import type { ContainerEventSource, PodLister } from "../../../src/pleg/deps.ts";
import { runtimeViews } from "../../../src/runtime/index.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { E2E_CONTAINERD_VERSIONS } from "../../harness/containerd-versions.ts";
import { runCommand } from "../../harness/images.ts";
import { waitFor } from "../../harness/wait.ts";
import { createPod, nextEvent, watchedLogger } from "../../integration/pleg/helpers.ts";

describe.each(E2E_CONTAINERD_VERSIONS)("PLEG on containerd %s", (version) => {
  let ctd: TestContainerd;
  let cri: CriClient;
  let pleg: Pleg;
  const metrics = createMetrics();
  const cache = new PodCache();
  const log = watchedLogger();
  const streamAttempts: number[] = [];
  const relistStarts: number[] = [];
  /** When each relist's listing came back from containerd. */
  const relistListed: number[] = [];
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

  const successes = async () => (await metrics.eventedPlegConnectionSuccess.get()).values[0]?.value ?? 0;

  /** Polls `check` every 50 ms until it holds; fails naming `what` and the PLEG's status after timeoutMs. */
  async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    await waitFor(what, check, { timeoutMs, intervalMs: 50, detail: () => `PLEG status ${JSON.stringify(pleg.status())}` });
  }

  beforeAll(async () => {
    ctd = await startTestContainerd({ name: "pleg-e2e", version });
    cri = createCriClient({ endpoint: ctd.endpoint });
    const lister = runtimeViews(cri);
    const runtime: PodLister = {
      ...lister,
      getPods: (opts) => {
        relistStarts.push(realClock.now());
        relisted?.();
        return lister.getPods(opts).then((pods) => (relistListed.push(realClock.now()), pods));
      },
    };
    const events: ContainerEventSource = {
      getContainerEvents(signal): AsyncIterable<ContainerEventResponse> {
        streamAttempts.push(realClock.now());
        return cri.runtime.getContainerEvents({}, { signal });
      },
    };
    // On 1.7 a fallback (containerd restarting) re-probes after 2 s, not 30 s; 1.6 keeps the defaults.
    const overrides = version === "1.6" ? {} : { reprobeInitialMs: 2000, reprobeStableMs: 2000 };
    pleg = createPleg({ runtime, cri: events, cache, clock: realClock, log, metrics, eventedEnabled: true }, overrides);
    pleg.start();
    if (version === "1.6") {
      await log.when((l) => l.msg === "PLEG switched to generic mode", 60_000);
    } else {
      await until("the first GetContainerEvents stream is established", async () => (await successes()) >= 1, 60_000);
    }
  }, 120_000);

  afterAll(async () => {
    await pleg?.stop();
    cri?.close();
    await ctd?.stop();
  }, 60_000);

  if (version === "1.6") {
    test("falls back to relisting after exactly five GetContainerEvents attempts", async () => {
      const line = log.lines.find((l) => l.msg === "PLEG switched to generic mode")!;
      expect(line.reason).toContain("UNIMPLEMENTED");
      expect(streamAttempts).toHaveLength(5);
      expect((await metrics.eventedPlegConnectionErrors.get()).values[0]?.value).toBe(5);
      expect(pleg.mode()).toBe("generic");
      expect(pleg.status()).toMatchObject({ relistPeriodMs: 1000, nextProbeAt: expect.any(Number) });
    });

    test("then keeps relisting, each relist at least one period (1 s) after the previous one", async () => {
      const from = relistStarts.length;
      await whenRelists(from + 4);
      const starts = relistStarts.slice(from);
      const intervals = starts.slice(1).map((t, i) => t - starts[i]!);
      // The next relist is due one period after the previous one ended, so never sooner.
      for (const ms of intervals) expect(ms).toBeGreaterThanOrEqual(1000);
      expect(streamAttempts).toHaveLength(5);
      expect(pleg.status()).toMatchObject({ mode: "generic", relistPeriodMs: 1000 });
      expect(pleg.healthy()).toEqual({ ok: true });
    }, 120_000);

    test("a container killed behind its back is reported by a relist that listed after the kill", async () => {
      const pod = await createPod(cri, "victim");
      const id = pod.containerIds[0]!;
      await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === id, 60_000);
      const killedAt = realClock.now();
      await runCommand(["ctr", "--address", ctd.socketPath, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id]);
      await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 60_000);
      // Only a listing made after the kill can show the exit: one came back after it (no stream here).
      expect(relistListed.at(-1)!).toBeGreaterThanOrEqual(killedAt);
      expect(streamAttempts).toHaveLength(5);
      expect(pleg.mode()).toBe("generic");
      const status = cache.get(pod.uid).status.containerStatuses.find((c) => c.id === id);
      expect(status).toMatchObject({ state: "exited", exitCode: 137 });
    }, 120_000);
  }

  if (version !== "1.6") {
    test("streams events: evented mode, no stream errors, and no relist since the one at start-up", async () => {
      expect(pleg.mode()).toBe("evented");
      expect(await successes()).toBe(1);
      expect((await metrics.eventedPlegConnectionErrors.get()).values[0]?.value ?? 0).toBe(0);
      expect(pleg.status()).toMatchObject({ relistPeriodMs: 300_000 });
      expect(relistStarts).toHaveLength(1);
    });

    test("a container killed behind its back is a ContainerDied event from the stream, with no relist in between", async () => {
      const pod = await createPod(cri, "victim");
      const id = pod.containerIds[0]!;
      await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === id, 60_000);
      const relists = relistStarts.length;
      await runCommand(["ctr", "--address", ctd.socketPath, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id]);
      await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 60_000);
      expect(relistStarts.length).toBe(relists);
      const status = cache.get(pod.uid).status.containerStatuses.find((c) => c.id === id);
      expect(status).toMatchObject({ state: "exited", exitCode: 137 });
      // Everything so far came from the stream: still the start-up relist only.
      expect(relistStarts).toHaveLength(1);
    }, 120_000);

    test("containerd restarted under it: the dropped stream forces a relist, then events flow again", async () => {
      const relists = relistStarts.length;
      const connected = await successes();
      process.kill(ctd.managed.pid!, "SIGKILL"); // the harness's supervisor starts it again after 1 s
      await until("a relist forced by the dropped stream", () => relistStarts.length > relists, 20_000);
      await until("a new stream established, evented mode", async () => (await successes()) > connected && pleg.mode() === "evented", 60_000);
      expect(ctd.managed.restarts).toBe(1);

      const pod = await createPod(cri, "after-restart");
      const id = pod.containerIds[0]!;
      await nextEvent(pleg.events, (e) => e.type === "ContainerStarted" && e.data === id, 60_000);
      const before = relistStarts.length;
      await runCommand(["ctr", "--address", ctd.socketPath, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id]);
      await nextEvent(pleg.events, (e) => e.type === "ContainerDied" && e.data === id, 60_000);
      expect(relistStarts.length).toBe(before);
    }, 90_000);
  }
});
