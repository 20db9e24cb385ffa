import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ContainerState, PodSandboxState } from "../../../src/cri/index.ts";
import { runningPodFromStatus } from "../../../src/container/index.ts";
import { SyncError } from "../../../src/runtime/index.ts";
import { c, containersNamed, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

type Req = Record<string, unknown>;
const requests = (method: string) => h.fake.calls.filter((x) => x.method === method).map((x) => x.request as unknown as Req);

describe("killPod", () => {
  test("stops every running container in parallel with the grace period, then every sandbox", async () => {
    const pod = uniquePod({ terminationGracePeriodSeconds: 15, containers: [c("a"), c("b")] });
    await h.sync(pod);
    h.fake.delay("StopContainer", 1_000);
    h.fake.clearCalls();
    const killing = h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    await h.fake.whenCalled("StopContainer", 2);
    // Both stops are in flight before either finished.
    expect(h.fake.callNames().filter((n) => n === "StopContainer").length).toBe(2);
    await h.clock.advance(1_000);
    const result = await killing;
    expect(result.error).toBeUndefined();
    expect(h.fake.callNames().filter((n) => n !== "ListPodSandbox" && !n.endsWith("Status") && n !== "ListContainers")).toEqual([
      "StopContainer",
      "StopContainer",
      "StopPodSandbox",
    ]);
    expect(requests("StopContainer").map((r) => r.timeout)).toEqual([15n, 15n]);
    expect(h.fake.state.containers.every((x) => x.state === ContainerState.CONTAINER_EXITED)).toBe(true);
    expect(h.fake.state.sandboxes[0].state).toBe(PodSandboxState.SANDBOX_NOTREADY);
    // Each stop is the kubelet's Killing event, not the internal kill reason (Unknown).
    // The kubelet's key names: containerName and containerID.
    const stops = h.log.lines.filter((l) => l.reason !== undefined);
    expect(stops.map((l) => [l.msg, l.reason, l.gracePeriod, l.containerName]).sort()).toEqual([
      ["Stopping container a", "Killing", 15, "a"],
      ["Stopping container b", "Killing", 15, "b"],
    ]);
    expect(stops.map((l) => l.containerID).sort()).toEqual(h.fake.state.containers.map((x) => x.id).sort());
  });

  test("a deletion grace period override replaces the pod's and is raised to the 2 s minimum", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    h.fake.clearCalls();
    await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { gracePeriodOverride: 0, signal: h.signal });
    expect(requests("StopContainer").map((r) => r.timeout)).toEqual([2n]);
  });

  test("the pod's deletionGracePeriodSeconds wins over terminationGracePeriodSeconds", async () => {
    const pod = uniquePod({ terminationGracePeriodSeconds: 60, containers: [c("a")] }, { deletionGracePeriodSeconds: 5 });
    await h.sync(pod);
    h.fake.clearCalls();
    await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    expect(requests("StopContainer").map((r) => r.timeout)).toEqual([5n]);
  });

  test("the preStop hook runs before StopContainer and its time comes off the grace period", async () => {
    const pod = uniquePod({
      terminationGracePeriodSeconds: 30,
      containers: [c("a", { lifecycle: { preStop: { exec: { command: ["/bin/drain"] } } } })],
    });
    await h.sync(pod);
    h.fake.setExecResult(["/bin/drain"], { exitCode: 0, delayMs: 12_000 });
    h.fake.clearCalls();
    const killing = h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    await h.fake.whenCalled("ExecSync");
    await h.clock.advance(12_000);
    await killing;
    const names = h.fake.callNames().filter((n) => n === "ExecSync" || n === "StopContainer" || n === "StopPodSandbox");
    expect(names).toEqual(["ExecSync", "StopContainer", "StopPodSandbox"]);
    expect(requests("ExecSync")[0]).toMatchObject({ cmd: ["/bin/drain"], timeout: 30n });
    expect(requests("StopContainer")[0].timeout).toBe(18n);
  });

  test("a preStop hook that outlasts the grace period is cut off and the container gets the 2 s minimum", async () => {
    const pod = uniquePod({ terminationGracePeriodSeconds: 5, containers: [c("a", { lifecycle: { preStop: { sleep: { seconds: 60 } } } })] });
    await h.sync(pod);
    h.fake.clearCalls();
    const killing = h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    await h.clock.advance(5_000);
    await killing;
    expect(requests("StopContainer").map((r) => r.timeout)).toEqual([2n]);
    expect(h.clock.now() - h.fake.calls.find((x) => x.method === "StopContainer")!.at).toBe(0);
    // The sleep hook cut short is counted.
    expect((await h.metrics.sleepActionTerminatedEarly.get()).values[0]?.value).toBe(1);
  });

  test("a failing preStop hook does not prevent the stop", async () => {
    const pod = uniquePod({ containers: [c("a", { lifecycle: { preStop: { exec: { command: ["false"] } } } })] });
    await h.sync(pod);
    const result = await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    expect(result.error).toBeUndefined();
    expect(containersNamed(h, "a")[0].state).toBe(ContainerState.CONTAINER_EXITED);
    expect(h.log.lines.some((l) => l.msg === "PreStop hook failed; stopping the container anyway")).toBe(true);
  });

  test("an orphan (no spec) is killed with grace and preStop rebuilt from its annotations", async () => {
    const pod = uniquePod({
      terminationGracePeriodSeconds: 9,
      containers: [c("a", { lifecycle: { preStop: { exec: { command: ["/bin/bye"] } } } })],
    });
    await h.sync(pod);
    const running = (await h.rm.getPods({ signal: h.signal })).find((p) => p.uid === pod.metadata.uid)!;
    h.fake.clearCalls();
    await h.rm.killPod(undefined, running, { signal: h.signal });
    expect(h.fake.callNames()).toEqual(["ContainerStatus", "ExecSync", "StopContainer", "StopPodSandbox"]);
    expect(requests("ExecSync")[0].cmd).toEqual(["/bin/bye"]);
    expect(requests("StopContainer")[0].timeout).toBe(9n);
  });

  test("sidecars stop after the regular containers, in reverse order", async () => {
    const pod = uniquePod({
      terminationGracePeriodSeconds: 30,
      initContainers: [c("side1", { restartPolicy: "Always" }), c("side2", { restartPolicy: "Always" })],
      containers: [c("app")],
    });
    for (let i = 0; i < 3; i++) await h.sync(pod);
    expect(containersNamed(h, "app").length).toBe(1);
    h.fake.delay("StopContainer", 1_000);
    h.fake.clearCalls();
    const killing = h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    await h.fake.whenCalled("StopContainer", 1);
    await h.clock.advance(1_000);
    await h.fake.whenCalled("StopContainer", 2);
    await h.clock.advance(1_000);
    await h.fake.whenCalled("StopContainer", 3);
    await h.clock.advance(1_000);
    await killing;
    const order = requests("StopContainer").map((r) => h.fake.state.container(r.containerId as string)!.name);
    expect(order).toEqual(["app", "side2", "side1"]);
  });

  test("a StopContainer failure is reported as KillContainerError and the sandbox is still stopped", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    h.fake.failNext("StopContainer", 14);
    const result = await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    expect(result.steps.find((s) => s.action === "KillContainer")?.error?.reason).toBe("KillContainerError");
    // The pod's error is the failed kill (and only it): the sandbox stop after it succeeded.
    const failed = result.steps.filter((s) => s.error).map((s) => [s.action, s.target, s.error?.reason]);
    expect(failed).toEqual([["KillContainer", "a", "KillContainerError"]]);
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).reason).toBe("KillContainerError");
    expect((result.error as SyncError).backoffUntil).toBe(0);
    expect(result.error?.message).toStartWith('failed to "KillContainer" for "a" with KillContainerError: ');
    expect(result.error?.message).toContain("injected UNAVAILABLE for StopContainer");
    expect(h.fake.state.sandboxes[0].state).toBe(PodSandboxState.SANDBOX_NOTREADY);
  });
});

describe("postStart hook", () => {
  test("a failing postStart kills the container with reason FailedPostStartHook and reports PostStartHookError", async () => {
    const pod = uniquePod({ containers: [c("a", { lifecycle: { postStart: { exec: { command: ["false"] } } } })] });
    const result = await h.sync(pod);
    expect(h.calls().slice(-3)).toEqual(["StartContainer", "ExecSync", "StopContainer"]);
    expect(result.steps.find((s) => s.target === "a")?.error?.reason).toBe("PostStartHookError");
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.message).toContain("command exited with 1");
    expect(containersNamed(h, "a")[0].state).toBe(ContainerState.CONTAINER_EXITED);
    // The kubelet's Killing event carries the postStart failure as its message.
    expect(h.log.lines.some((l) => l.msg === "FailedPostStartHook" && l.reason === "Killing")).toBe(true);
  });

  test("a succeeding postStart leaves the container running", async () => {
    const pod = uniquePod({ containers: [c("a", { lifecycle: { postStart: { exec: { command: ["echo", "hi"] } } } })] });
    const result = await h.sync(pod);
    expect(result.error).toBeUndefined();
    expect(containersNamed(h, "a")[0].state).toBe(ContainerState.CONTAINER_RUNNING);
  });
});
