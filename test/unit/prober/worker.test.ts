import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import type { ProbeType, ProbeUpdate } from "../../../src/prober/index.ts";
import { ResultsManager, type ProbeResult } from "../../../src/prober/results.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { ProbeWorker } from "../../../src/prober/probe-worker.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { containerStatus, FakeProvider, log, probedPod, newClock, podStatus, probe, ScriptedChecker, START } from "./fixtures.ts";

interface Setup {
  type: ProbeType;
  container?: Partial<Container>;
  pod?: (p: Pod) => void;
  status?: RuntimePodStatus | undefined;
  started?: boolean;
  sidecar?: boolean;
  managerStartedAt?: number;
  random?: number;
}

function setup(s: Setup) {
  const clock = newClock();
  const field = s.type === "liveness" ? "livenessProbe" : s.type === "readiness" ? "readinessProbe" : "startupProbe";
  const pod = probedPod({ [field]: probe(), ...s.container });
  s.pod?.(pod);
  const provider = new FakeProvider(pod, "status" in s ? s.status : podStatus(containerStatus("id1", "running", START - 60_000)));
  const results = new ResultsManager(100);
  const checker = new ScriptedChecker();
  const started = { value: s.started ?? true };
  const metrics = createMetrics();
  const container = (s.sidecar ? pod.spec.initContainers![0] : pod.spec.containers[0])!;
  const worker = new ProbeWorker({
    probeType: s.type,
    pod,
    container,
    sidecar: s.sidecar ?? false,
    results,
    statusProvider: provider.get,
    check: checker.check,
    isStarted: () => started.value,
    cri: { runtime: {} as never },
    clock,
    random: () => s.random ?? 0,
    managerStartedAt: s.managerStartedAt ?? START - 3_600_000,
    log,
    recorder: { event: () => undefined },
    metrics,
  });
  const updates = (): ProbeUpdate[] => {
    const out: ProbeUpdate[] = [];
    for (let u = results.updates.tryReceive(); u; u = results.updates.tryReceive()) out.push(u.value);
    return out;
  };
  return { clock, pod, provider, results, checker, started, worker, updates, metrics };
}

describe("doProbe rules (worker.go)", () => {
  interface Case {
    name: string;
    setup: Setup;
    keepGoing: boolean;
    result: ProbeResult | undefined;
    probed: boolean;
  }
  const exited = podStatus(containerStatus("id1", "exited", START - 60_000));
  const cases: Case[] = [
    { name: "no status for the pod yet: wait, no result", setup: { type: "readiness", status: undefined }, keepGoing: true, result: undefined, probed: false },
    { name: "the container does not exist yet: wait, no result", setup: { type: "liveness", status: podStatus() }, keepGoing: true, result: undefined, probed: false },
    { name: "an exited container is a failure, and probing goes on under Always", setup: { type: "liveness", status: exited }, keepGoing: true, result: "Failure", probed: false },
    { name: "an exited container under Never ends the worker", setup: { type: "readiness", status: exited, pod: (p) => (p.spec.restartPolicy = "Never") }, keepGoing: false, result: "Failure", probed: false },
    {
      name: "an exited container under pod Never whose own policy is OnFailure keeps the worker (it exited 1)",
      setup: { type: "readiness", status: exited, container: { restartPolicy: "OnFailure" }, pod: (p) => (p.spec.restartPolicy = "Never") },
      keepGoing: true,
      result: "Failure",
      probed: false,
    },
    {
      name: "an exited container under pod Never with a Restart rule on its exit code keeps the worker",
      setup: {
        type: "readiness",
        status: exited,
        container: { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }] },
        pod: (p) => (p.spec.restartPolicy = "Never"),
      },
      keepGoing: true,
      result: "Failure",
      probed: false,
    },
    { name: "an exited container under pod Always whose own policy is Never ends the worker", setup: { type: "readiness", status: exited, container: { restartPolicy: "Never" } }, keepGoing: false, result: "Failure", probed: false },
    { name: "an exited container under OnFailure keeps the worker", setup: { type: "readiness", status: exited, pod: (p) => (p.spec.restartPolicy = "OnFailure") }, keepGoing: true, result: "Failure", probed: false },
    { name: "a created (not running) container is a failure", setup: { type: "startup", status: podStatus(containerStatus("id1", "created", 0)), started: false }, keepGoing: true, result: "Failure", probed: false },
    { name: "deletion requested: liveness records success and stops", setup: { type: "liveness", pod: (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z") }, keepGoing: false, result: "Success", probed: false },
    { name: "deletion requested: startup records success and stops", setup: { type: "startup", started: false, pod: (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z") }, keepGoing: false, result: "Success", probed: false },
    { name: "deletion requested: readiness keeps probing", setup: { type: "readiness", pod: (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z") }, keepGoing: true, result: "Success", probed: true },
    { name: "inside initialDelaySeconds: readiness stays at its initial Failure", setup: { type: "readiness", container: { readinessProbe: probe({ initialDelaySeconds: 61 }) } }, keepGoing: true, result: "Failure", probed: false },
    { name: "inside initialDelaySeconds: liveness stays at its initial Success", setup: { type: "liveness", container: { livenessProbe: probe({ initialDelaySeconds: 61 }) } }, keepGoing: true, result: "Success", probed: false },
    { name: "inside initialDelaySeconds: startup stays Unknown", setup: { type: "startup", started: false, container: { startupProbe: probe({ initialDelaySeconds: 61 }) } }, keepGoing: true, result: "Unknown", probed: false },
    { name: "initialDelaySeconds passed: the probe runs", setup: { type: "readiness", container: { readinessProbe: probe({ initialDelaySeconds: 60 }) } }, keepGoing: true, result: "Success", probed: true },
    { name: "readiness waits for the container to be started", setup: { type: "readiness", started: false }, keepGoing: true, result: "Failure", probed: false },
    { name: "liveness waits for the container to be started", setup: { type: "liveness", started: false }, keepGoing: true, result: "Success", probed: false },
    { name: "startup runs until the container is started", setup: { type: "startup", started: false }, keepGoing: true, result: "Success", probed: true },
    { name: "startup is not run once the container is started", setup: { type: "startup", started: true }, keepGoing: true, result: "Unknown", probed: false },
    {
      name: "an exited sidecar keeps its worker even under Never",
      setup: {
        type: "liveness",
        sidecar: true,
        status: podStatus(containerStatus("id1", "exited", START - 60_000, "side")),
        pod: (p) => {
          p.spec.restartPolicy = "Never";
          p.spec.initContainers = [{ name: "side", image: "busybox", restartPolicy: "Always", livenessProbe: probe() }];
        },
      },
      keepGoing: true,
      result: "Failure",
      probed: false,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const t = setup(c.setup);
      expect(await t.worker.doProbe()).toBe(c.keepGoing);
      expect(t.results.get("id1")).toBe(c.result);
      expect(t.checker.calls.length).toBe(c.probed ? 1 : 0);
    });
  }

  test("a terminal pod phase ends the worker without probing", async () => {
    const t = setup({ type: "readiness" });
    t.provider.view!.phase = "Succeeded";
    expect(await t.worker.doProbe()).toBe(false);
    expect(t.checker.calls.length).toBe(0);
  });

  test("the probe gets the container id, the pod IP and the container spec", async () => {
    const t = setup({ type: "readiness" });
    await t.worker.doProbe();
    const req = t.checker.calls[0]!;
    expect(req.target.containerId).toBe("id1");
    expect(req.target.podIP).toBe("10.0.0.2");
    expect(req.container.name).toBe("c");
    expect(String(req.pod)).toBe("default/web");
    expect(req.spec.periodSeconds).toBe(10);
    expect(req.spec.failureThreshold).toBe(3); // defaulted
  });
});

describe("result run lengths", () => {
  test("liveness turns Failure only after failureThreshold consecutive failures", async () => {
    const t = setup({ type: "liveness", container: { livenessProbe: probe({ failureThreshold: 3 }) } });
    t.checker.queue.push("Failure", "Failure", "Success", "Failure", "Failure");
    const seen: (ProbeResult | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      if (i === 5) t.checker.queue.push("Failure");
      await t.worker.doProbe();
      seen.push(t.results.get("id1"));
    }
    expect(seen).toEqual(["Success", "Success", "Success", "Success", "Success", "Failure"]);
  });

  test("readiness turns Success only after successThreshold consecutive successes", async () => {
    const t = setup({ type: "readiness", container: { readinessProbe: probe({ successThreshold: 2 }) } });
    t.checker.queue.push("Success", "Failure", "Success", "Success");
    const seen: (ProbeResult | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      await t.worker.doProbe();
      seen.push(t.results.get("id1"));
    }
    expect(seen).toEqual(["Failure", "Failure", "Failure", "Success"]);
  });

  test("a probe that could not run changes nothing and does not count", async () => {
    const t = setup({ type: "readiness", container: { readinessProbe: probe({ successThreshold: 2 }) } });
    t.checker.queue.push("Success", undefined, "Success");
    for (let i = 0; i < 2; i++) await t.worker.doProbe();
    expect(t.results.get("id1")).toBe("Failure");
    await t.worker.doProbe();
    expect(t.results.get("id1")).toBe("Success");
  });

  test("only changes are published on the update channel", async () => {
    const t = setup({ type: "readiness" });
    t.checker.queue.push("Success", "Success", "Failure", "Failure", "Failure");
    for (let i = 0; i < 5; i++) await t.worker.doProbe();
    expect(t.updates().map((u) => u.result)).toEqual(["Failure", "Success", "Failure"]);
    expect(t.updates()).toEqual([]);
  });

  test("updates name the pod, the container and its id", async () => {
    const t = setup({ type: "startup", started: false });
    await t.worker.doProbe();
    expect(t.updates()).toEqual([
      { podUID: "uid-1", containerId: "id1", containerName: "c", result: "Unknown" },
      { podUID: "uid-1", containerId: "id1", containerName: "c", result: "Success" },
    ]);
  });
});

describe("on hold after a liveness or startup failure", () => {
  for (const type of ["liveness", "startup"] as const) {
    test(`${type}: no probing after a failure until a new container id, which starts from the initial value`, async () => {
      const t = setup({ type, started: type === "liveness", container: { [`${type}Probe`]: probe({ failureThreshold: 1 }) } });
      t.checker.fallback = "Failure";
      await t.worker.doProbe();
      expect(t.results.get("id1")).toBe("Failure");
      await t.worker.doProbe();
      await t.worker.doProbe();
      expect(t.checker.calls.length).toBe(1);

      t.provider.view!.podStatus = podStatus(containerStatus("id2", "running", START), containerStatus("id1", "exited", START - 60_000));
      t.checker.fallback = "Success";
      await t.worker.doProbe();
      expect(t.results.get("id1")).toBeUndefined();
      expect(t.results.get("id2")).toBe("Success");
      expect(t.checker.calls.length).toBe(2);
    });
  }

  test("readiness failures do not put the worker on hold", async () => {
    const t = setup({ type: "readiness", container: { readinessProbe: probe({ failureThreshold: 1 }) } });
    t.checker.fallback = "Failure";
    for (let i = 0; i < 3; i++) await t.worker.doProbe();
    expect(t.checker.calls.length).toBe(3);
  });

  test("a new container starts its failure run afresh", async () => {
    const t = setup({ type: "liveness", container: { livenessProbe: probe({ failureThreshold: 3 }) } });
    t.checker.fallback = "Failure";
    await t.worker.doProbe();
    await t.worker.doProbe();
    t.provider.view!.podStatus = podStatus(containerStatus("id2", "running", START));
    await t.worker.doProbe();
    expect(t.results.get("id2")).toBe("Success");
  });
});

describe("the worker loop on the clock", () => {
  test("probes at once, then every periodSeconds", async () => {
    const t = setup({ type: "readiness" });
    const done = t.worker.run();
    await t.clock.advance(0);
    expect(t.checker.calls.length).toBe(1);
    await t.clock.advance(9_999);
    expect(t.checker.calls.length).toBe(1);
    await t.clock.advance(1);
    expect(t.checker.calls.length).toBe(2);
    await t.clock.advance(30_000);
    expect(t.checker.calls.length).toBe(5);
    t.worker.stop();
    await done;
  });

  test("a bunlet that started less than a period ago waits a random part of the period first", async () => {
    const t = setup({ type: "readiness", managerStartedAt: START, random: 0.25 });
    const done = t.worker.run();
    await t.clock.advance(2_499);
    expect(t.checker.calls.length).toBe(0);
    await t.clock.advance(1);
    expect(t.checker.calls.length).toBe(1);
    await t.clock.advance(10_000);
    expect(t.checker.calls.length).toBe(2);
    t.worker.stop();
    await done;
  });

  test("a trigger runs a probe now, without waiting for the tick", async () => {
    const t = setup({ type: "readiness" });
    const done = t.worker.run();
    await t.clock.advance(1_000);
    expect(t.checker.calls.length).toBe(1);
    t.worker.trigger();
    await t.clock.advance(0);
    expect(t.checker.calls.length).toBe(2);
    await t.clock.advance(9_000); // the ticker's grid is unchanged
    expect(t.checker.calls.length).toBe(3);
    t.worker.stop();
    await done;
  });

  test("a worker whose doProbe says stop ends and removes its container's result", async () => {
    const t = setup({ type: "liveness", pod: (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z") });
    await t.worker.run();
    expect(t.results.get("id1")).toBeUndefined();
    expect(t.updates().map((u) => u.result)).toEqual(["Success"]);
  });

  test("stop ends the loop between ticks and clears the result", async () => {
    const t = setup({ type: "readiness" });
    const done = t.worker.run();
    await t.clock.advance(0);
    expect(t.results.get("id1")).toBe("Success");
    t.worker.stop();
    await done;
    expect(t.results.get("id1")).toBeUndefined();
    expect(t.clock.pending).toBe(0);
  });

  test("a worker blocked on a full update channel is released by stop", async () => {
    const t = setup({ type: "readiness" });
    const full = new ResultsManager(0);
    const w = new ProbeWorker({ probeType: "readiness", pod: t.pod, container: t.pod.spec.containers[0]!, sidecar: false, results: full, statusProvider: t.provider.get, check: t.checker.check, isStarted: () => true, cri: { runtime: {} as never }, clock: t.clock, random: () => 0, managerStartedAt: 0, log, metrics: t.metrics, recorder: { event: () => undefined } });
    const done = w.run();
    await t.clock.advance(0);
    expect(full.get("id1")).toBe("Failure"); // recorded, the update still waiting for room
    w.stop();
    await done;
    expect(full.get("id1")).toBeUndefined();
  });
});

describe("probe metrics (/metrics/probes)", () => {
  const series = { probe_type: "Readiness", container: "c", pod: "web", namespace: "default" };
  const count = async (m: ReturnType<typeof createMetrics>, result: string) =>
    (await m.proberProbeTotal.get()).values.find((v) => v.labels.result === result && v.labels.probe_type === "Readiness" && v.labels.pod_uid === "uid-1")?.value ?? 0;
  const histogram = async (m: ReturnType<typeof createMetrics>) => {
    const { values } = await m.proberProbeDuration.get();
    const mine = values.filter((v) => Object.entries(series).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want));
    return { count: mine.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0, sum: mine.find((v) => v.metricName?.endsWith("_sum"))?.value ?? 0 };
  };

  test("every probe with a result counts under the kubelet's labels; one that could not run does not", async () => {
    const t = setup({ type: "readiness" });
    t.checker.queue.push("Success", "Success", "Failure", undefined, "Unknown");
    for (let i = 0; i < 5; i++) await t.worker.doProbe();
    expect([await count(t.metrics, "successful"), await count(t.metrics, "failed"), await count(t.metrics, "unknown")]).toEqual([2, 1, 1]);
  });

  test("the duration of successful and unknown probes is observed, not of failed ones", async () => {
    const t = setup({ type: "readiness" });
    const answers: ProbeResult[] = ["Success", "Failure", "Unknown"];
    const slow = async () => {
      await t.clock.advance(250);
      return answers.shift();
    };
    const w = new ProbeWorker({ probeType: "readiness", pod: t.pod, container: t.pod.spec.containers[0]!, sidecar: false, results: t.results, statusProvider: t.provider.get, check: slow, isStarted: () => true, cri: { runtime: {} as never }, clock: t.clock, random: () => 0, managerStartedAt: 0, log, metrics: t.metrics, recorder: { event: () => undefined } });
    for (let i = 0; i < 3; i++) await w.doProbe();
    expect(await histogram(t.metrics)).toEqual({ count: 2, sum: 0.5 });
  });

  test("a worker that ends removes its series", async () => {
    const t = setup({ type: "readiness" });
    const done = t.worker.run();
    await t.clock.advance(0);
    expect(await count(t.metrics, "successful")).toBe(1);
    t.worker.stop();
    await done;
    expect((await t.metrics.proberProbeTotal.get()).values).toEqual([]);
    expect((await histogram(t.metrics)).count).toBe(0);
  });
});
