import { describe, expect, test } from "bun:test";
import type { PodStatus } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createStatusManager } from "../../../src/status/index.ts";
import { generateAPIPodStatus } from "../../../src/status/generate.ts";
import { c, podWith, running, stopped, waiting } from "./states.ts";
import { exited, iso, rc, runtimeStatus } from "./runtime.ts";

function setup() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 500));
  const log = createMemoryLogger();
  const manager = createStatusManager({ clock, log });
  return { clock, log, manager };
}

describe("status manager", () => {
  test("the first status sets startTime (whole seconds); later ones keep it", async () => {
    const { manager, clock } = setup();
    const pod = podWith({ containers: [c("app")] });
    manager.setPodStatus(pod, { phase: "Pending", containerStatuses: [waiting("app", "ContainerCreating")] });
    expect(manager.getPodStatus("uid-1")?.startTime).toBe("2026-01-01T12:00:00Z");
    await clock.advance(5_000);
    manager.setPodStatus(pod, { phase: "Running", containerStatuses: [running("app")], startTime: "2030-01-01T00:00:00Z" });
    expect(manager.getPodStatus("uid-1")?.startTime).toBe("2026-01-01T12:00:00Z");
  });

  test("statusAt is the time of the pod's first status, kept by later versions (versionedPodStatus.at)", async () => {
    const { manager, clock } = setup();
    const pod = podWith({ containers: [c("app")] });
    expect(manager.statusAt("uid-1")).toBeUndefined();
    manager.setPodStatus(pod, { phase: "Pending", containerStatuses: [waiting("app", "ContainerCreating")] });
    const first = clock.now();
    await clock.advance(3_000);
    manager.setPodStatus(pod, { phase: "Running", containerStatuses: [running("app")] });
    expect(manager.version("uid-1")).toBe(2);
    expect(manager.statusAt("uid-1")).toBe(first);
  });

  test("getPodPhase is the phase of the recorded status, through every change, and undefined without one", () => {
    const { manager } = setup();
    const pod = podWith({ containers: [c("app")] });
    expect(manager.getPodPhase("uid-1")).toBeUndefined();
    manager.setPodStatus(pod, { phase: "Pending", containerStatuses: [waiting("app", "ContainerCreating")] });
    expect(manager.getPodPhase("uid-1")).toBe("Pending");
    manager.setPodStatus(pod, { phase: "Running", containerStatuses: [running("app")] });
    expect(manager.getPodPhase("uid-1")).toBe(manager.getPodStatus("uid-1")!.phase!);
    manager.deletePodStatus("uid-1");
    expect(manager.getPodPhase("uid-1")).toBeUndefined();
  });

  test("the version moves only when something the kubelet owns changed", () => {
    const { manager } = setup();
    const pod = podWith({ containers: [c("app")] });
    expect(manager.version("uid-1")).toBe(0);
    const status: PodStatus = { phase: "Running", containerStatuses: [running("app")], conditions: [{ type: "Ready", status: "True" }] };
    manager.setPodStatus(pod, status);
    manager.setPodStatus(pod, structuredClone(status));
    expect(manager.version("uid-1")).toBe(1);
    manager.setPodStatus(pod, { ...structuredClone(status), conditions: [{ type: "Ready", status: "True" }, { type: "example.com/x", status: "True" }] });
    expect(manager.version("uid-1")).toBe(1);
    manager.setPodStatus(pod, { ...structuredClone(status), conditions: [{ type: "Ready", status: "False" }] });
    expect(manager.version("uid-1")).toBe(2);
  });

  test("a condition keeps its transition time while its status holds and gets a new one when it flips", async () => {
    const { manager, clock } = setup();
    const pod = podWith({ containers: [c("app")] });
    const cond = (status: "True" | "False") => ({ phase: "Running" as const, conditions: [{ type: "Ready", status, lastTransitionTime: "2000-01-01T00:00:00Z" }] });
    manager.setPodStatus(pod, cond("False"));
    const first = manager.getPodStatus("uid-1")!.conditions![0]!.lastTransitionTime;
    expect(first).toBe("2026-01-01T12:00:00Z");
    await clock.advance(10_000);
    manager.setPodStatus(pod, cond("False"));
    expect(manager.getPodStatus("uid-1")!.conditions![0]!.lastTransitionTime).toBe(first);
    manager.setPodStatus(pod, cond("True"));
    expect(manager.getPodStatus("uid-1")!.conditions![0]!.lastTransitionTime).toBe("2026-01-01T12:00:10Z");
  });

  test("a terminated container may not come back unless the pod restarts it", () => {
    const { manager, log } = setup();
    const never = podWith({ containers: [c("app")], restartPolicy: "Never" });
    manager.setPodStatus(never, { phase: "Succeeded", containerStatuses: [stopped("app")] });
    manager.setPodStatus(never, { phase: "Running", containerStatuses: [running("app")] });
    expect(manager.getPodStatus("uid-1")?.phase).toBe("Succeeded");
    expect(manager.version("uid-1")).toBe(1);
    expect(log.lines.some((l) => l.level === "error" && String(l.err).includes("illegal transition"))).toBe(true);

    const always = { ...podWith({ containers: [c("app")] }), metadata: { name: "q", namespace: "ns", uid: "uid-2" } };
    manager.setPodStatus(always, { phase: "Running", containerStatuses: [stopped("app")] });
    manager.setPodStatus(always, { phase: "Running", containerStatuses: [running("app")] });
    expect(manager.getPodStatus("uid-2")?.containerStatuses?.[0]?.state?.running).toBeDefined();
  });

  test("under pod Never a terminated container may come back when its own restart rule or policy restarts it", () => {
    const { manager } = setup();
    const exited = (name: string, exitCode: number) => ({ ...stopped(name), state: { terminated: { exitCode } } });
    const pod = podWith({
      containers: [c("ruled", { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }), c("own", { restartPolicy: "OnFailure" })],
      initContainers: [c("init", { restartPolicy: "OnFailure" })],
      restartPolicy: "Never",
    });
    manager.setPodStatus(pod, { phase: "Running", initContainerStatuses: [exited("init", 1)], containerStatuses: [exited("ruled", 42), exited("own", 2)] });
    manager.setPodStatus(pod, { phase: "Running", initContainerStatuses: [running("init")], containerStatuses: [running("ruled"), running("own")] });
    const s = manager.getPodStatus("uid-1")!;
    expect([s.initContainerStatuses![0]!.state?.running, s.containerStatuses![0]!.state?.running, s.containerStatuses![1]!.state?.running].every((x) => x !== undefined)).toBe(true);
    // Not on an exit code the rule does not cover.
    const other = { ...pod, metadata: { name: "q", namespace: "ns", uid: "uid-2" } };
    manager.setPodStatus(other, { phase: "Running", containerStatuses: [exited("ruled", 1), exited("own", 2)] });
    manager.setPodStatus(other, { phase: "Running", containerStatuses: [running("ruled"), running("own")] });
    expect(manager.getPodStatus("uid-2")!.containerStatuses!.find((x) => x.name === "ruled")!.state?.terminated?.exitCode).toBe(1);
  });

  test("a terminal phase forces Ready and ContainersReady to False", () => {
    const { manager } = setup();
    const pod = podWith({ containers: [c("app")], restartPolicy: "Never" });
    manager.setPodStatus(pod, { phase: "Failed", conditions: [{ type: "Ready", status: "True" }, { type: "ContainersReady", status: "True" }] });
    const conditions = manager.getPodStatus("uid-1")!.conditions!.map((c) => [c.type, c.status, c.reason]);
    expect(conditions).toEqual([
      ["Ready", "False", "PodFailed"],
      ["ContainersReady", "False", "PodFailed"],
    ]);
  });

  test("terminatePod marks unfinished containers ContainerStatusUnknown and fails a non-static pod", () => {
    const { manager, clock } = setup();
    const pod = podWith({ containers: [c("a"), c("b")] });
    const status = generateAPIPodStatus(pod, runtimeStatus([rc("a"), exited("b", 0)]), { podIsTerminal: false, waitingReason: () => undefined, hostIPs: [], now: clock.now() });
    manager.setPodStatus(pod, status);
    manager.terminatePod(pod);
    const after = manager.getPodStatus("uid-1")!;
    expect(after.phase).toBe("Failed");
    expect(after.containerStatuses!.map((s) => s.state?.terminated?.reason)).toEqual(["ContainerStatusUnknown", "Completed"]);
    expect(after.containerStatuses![0]!.state?.terminated?.exitCode).toBe(137);
    expect(manager.isFinished("uid-1")).toBe(true);
    expect(after.conditions!.find((c) => c.type === "Ready")?.status).toBe("False");
  });

  test("terminatePod keeps a static pod's phase and leaves never-started containers of an uninitialized pod alone", () => {
    const { manager } = setup();
    const pod = podWith({ initContainers: [c("i1"), c("i2")], containers: [c("app")] }, { static: true });
    manager.setPodStatus(pod, {
      phase: "Pending",
      initContainerStatuses: [running("i1"), waiting("i2", "PodInitializing")],
      containerStatuses: [waiting("app", "PodInitializing")],
    });
    manager.terminatePod(pod);
    const after = manager.getPodStatus("uid-1")!;
    expect(after.phase).toBe("Pending");
    expect(after.initContainerStatuses!.map((s) => Object.keys(s.state!)[0])).toEqual(["terminated", "waiting"]);
    expect(after.containerStatuses![0]!.state?.waiting).toBeDefined();
  });

  test("timestamps are normalised to whole seconds and statuses sorted", () => {
    const { manager } = setup();
    const pod = podWith({ initContainers: [c("z"), c("a")], containers: [c("b"), c("a2")], ephemeralContainers: [c("e2"), c("e1")] });
    manager.setPodStatus(pod, {
      phase: "Pending",
      startTime: "2026-01-01T00:00:00.750Z",
      initContainerStatuses: [waiting("a"), { ...running("z"), state: { running: { startedAt: "2026-01-01T00:00:01.999Z" } } }],
      containerStatuses: [waiting("b"), waiting("a2")],
      ephemeralContainerStatuses: [{ ...running("e2"), state: { running: { startedAt: "2026-01-01T00:00:02.250Z" } } }, waiting("e1")],
    });
    const s = manager.getPodStatus("uid-1")!;
    expect(s.startTime).toBe(iso(Date.UTC(2026, 0, 1)));
    expect(s.initContainerStatuses!.map((x) => x.name)).toEqual(["z", "a"]);
    expect(s.initContainerStatuses![0]!.state?.running?.startedAt).toBe("2026-01-01T00:00:01Z");
    expect(s.containerStatuses!.map((x) => x.name)).toEqual(["a2", "b"]);
    expect(s.ephemeralContainerStatuses!.map((x) => x.name)).toEqual(["e1", "e2"]);
    expect(s.ephemeralContainerStatuses![1]!.state?.running?.startedAt).toBe("2026-01-01T00:00:02Z");
  });

  test("getPodStatus returns a copy; orphaned and deleted statuses are forgotten", () => {
    const { manager } = setup();
    const a = podWith({ containers: [c("app")] });
    const b = { ...podWith({ containers: [c("app")] }), metadata: { name: "b", namespace: "ns", uid: "uid-2" } };
    manager.setPodStatus(a, { phase: "Running" });
    manager.setPodStatus(b, { phase: "Running" });
    manager.getPodStatus("uid-1")!.phase = "Failed";
    expect(manager.getPodStatus("uid-1")?.phase).toBe("Running");
    manager.removeOrphanedStatuses(new Set(["uid-2"]));
    expect(manager.getPodStatus("uid-1")).toBeUndefined();
    manager.deletePodStatus("uid-2");
    expect(manager.getPodStatus("uid-2")).toBeUndefined();
  });

  // The conditions' observedGeneration is the status generator's (test/unit/status/generate tests); the manager stamps the status.
  test("the status carries the pod's generation (observedGeneration), which never goes back", () => {
    const { manager } = setup();
    const pod = podWith({ containers: [c("app")] });
    pod.metadata.generation = 3;
    const status = (): PodStatus => ({
      phase: "Running",
      containerStatuses: [running("app")],
      conditions: [{ type: "Ready", status: "True" }, { type: "example.com/gate", status: "True" }],
    });
    manager.setPodStatus(pod, status());
    const first = manager.getPodStatus("uid-1")!;
    expect(first.observedGeneration).toBe(3);
    // A spec update (generation 4) with nothing else changed is a new status to send.
    pod.metadata.generation = 4;
    manager.setPodStatus(pod, status());
    expect(manager.version("uid-1")).toBe(2);
    expect(manager.getPodStatus("uid-1")).toMatchObject({ observedGeneration: 4 });
    // An older copy of the pod (a stale informer event) does not take it back.
    pod.metadata.generation = 2;
    manager.setPodStatus(pod, status());
    expect(manager.getPodStatus("uid-1")!.observedGeneration).toBe(4);
  });

  test("a pod without a generation (a static pod from a file) has no observedGeneration", () => {
    const { manager } = setup();
    manager.setPodStatus(podWith({ containers: [c("app")] }, { static: true }), { phase: "Running", conditions: [{ type: "Ready", status: "True" }] });
    const status = manager.getPodStatus("uid-1")!;
    expect(status.observedGeneration).toBeUndefined();
    expect(status.conditions![0]!.observedGeneration).toBeUndefined();
  });
});
