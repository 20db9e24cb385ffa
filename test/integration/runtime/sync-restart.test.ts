import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ContainerState, PodSandboxState } from "../../../src/cri/index.ts";
import { hashContainer } from "../../../src/container/index.ts";
import { SyncError } from "../../../src/runtime/index.ts";
import { c, containersNamed, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

const states = (name: string) => containersNamed(h, name).map((x) => x.state);
const lastId = (name: string) => containersNamed(h, name).at(-1)!.id;

describe("restart policies", () => {
  test.each([
    ["Always", 0, true],
    ["Always", 1, true],
    ["OnFailure", 1, true],
    ["OnFailure", 0, false],
    ["Never", 1, false],
  ] as const)("under %s an exit with code %d restarts: %p", async (restartPolicy, exitCode, restarts) => {
    const pod = uniquePod({ restartPolicy, containers: [c("a"), c("keep")] });
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), exitCode);
    await h.sync(pod);
    expect(states("a").length).toBe(restarts ? 2 : 1);
    if (restarts) expect(containersNamed(h, "a")[1].annotations["io.kubernetes.container.restartCount"]).toBe("1");
  });

  test("under Never the pod is killed once every container exited, and its sandbox is stopped", async () => {
    const pod = uniquePod({ restartPolicy: "Never", containers: [c("a")] });
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.calls()).toEqual(["StopPodSandbox"]);
    expect(h.fake.state.sandboxes[0].state).toBe(PodSandboxState.SANDBOX_NOTREADY);
    // Done for good: the next sync does not recreate the sandbox.
    await h.sync(pod);
    expect(h.calls()).toEqual(["StopPodSandbox"]);
    expect(h.fake.state.sandboxes.length).toBe(1);
  });
});

describe("crash-loop backoff", () => {
  test("the first restart is immediate, then restarts wait 10 s, 20 s, ... after the last exit", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    const uid = pod.metadata.uid!;
    await h.sync(pod);

    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.calls()).toEqual(["ImageStatus", "ImageStatus", "CreateContainer", "StartContainer"]);

    h.fake.exitContainer(lastId("a"), 1);
    const exitedAt = h.clock.now();
    let result = await h.sync(pod);
    expect(h.calls()).toEqual([]);
    const message = `back-off 10s restarting failed container=a pod=${pod.metadata.name}_ns(${uid})`;
    expect(h.rm.getContainerWaitingReason(uid, "a")).toEqual({ reason: "CrashLoopBackOff", message });
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).backoffUntil).toBe(exitedAt + 10_000);

    await h.clock.advance(9_000);
    await h.sync(pod);
    expect(h.calls()).toEqual([]);
    await h.clock.advance(1_000);
    result = await h.sync(pod);
    expect(result.error).toBeUndefined();
    expect(h.calls()).toContain("StartContainer");
    expect(h.rm.getContainerWaitingReason(uid, "a")).toBeUndefined();
    expect(containersNamed(h, "a").at(-1)!.attempt).toBe(2);

    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.rm.getContainerWaitingReason(uid, "a")?.message).toStartWith("back-off 20s restarting failed container=a");
    await h.clock.advance(19_000);
    await h.sync(pod);
    expect(h.calls()).toEqual([]);
    await h.clock.advance(1_000);
    await h.sync(pod);
    expect(h.calls()).toContain("StartContainer");
  });

  test("a sync that comes seconds after the exit still waits from the exit, not from the sync", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    const uid = pod.metadata.uid!;
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    await h.clock.advance(30_000);
    h.fake.exitContainer(lastId("a"), 1);
    const exitedAt = h.clock.now();
    await h.clock.advance(4_000); // a late PLEG event, a busy worker
    const result = await h.sync(pod);
    expect(h.calls()).toEqual([]);
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).reason).toBe("CrashLoopBackOff");
    expect((result.error as SyncError).backoffUntil).toBe(exitedAt + 10_000);
    expect(h.rm.getContainerWaitingReason(uid, "a")?.message).toStartWith("back-off 10s restarting failed container=a");
    await h.clock.advance(5_999);
    await h.sync(pod);
    expect(h.calls()).toEqual([]);
    await h.clock.advance(1);
    await h.sync(pod);
    expect(h.calls()).toContain("StartContainer");
  });

  test("a new image during a crash loop starts the new container at once, and its backoff starts over", async () => {
    h.fake.addImage("docker.io/library/busybox:1.37");
    const pod = uniquePod({ containers: [c("a")] });
    const uid = pod.metadata.uid!;
    await h.sync(pod);
    for (const wait of [0, 10_000, 20_000]) {
      h.fake.exitContainer(lastId("a"), 1);
      await h.clock.advance(wait);
      await h.sync(pod);
    }
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.rm.getContainerWaitingReason(uid, "a")?.message).toStartWith("back-off 40s");
    pod.spec.containers[0].image = "docker.io/library/busybox:1.37";
    await h.sync(pod);
    expect(h.calls()).toContain("StartContainer");
    expect(containersNamed(h, "a").at(-1)!.annotations["io.kubernetes.container.hash"]).toBe(hashContainer(pod.spec.containers[0]));
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.calls()).toEqual([]);
    expect(h.rm.getContainerWaitingReason(uid, "a")?.message).toStartWith("back-off 10s");
  });

  test("a container that ran longer than 10 minutes restarts at once and starts over at 10 s", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    for (let i = 0; i < 3; i++) {
      h.fake.exitContainer(lastId("a"), 1);
      await h.clock.advance(60_000);
      await h.sync(pod);
    }
    await h.clock.advance(11 * 60_000);
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.calls()).toContain("StartContainer");
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.message).toStartWith("back-off 10s");
  });

  test("forgetPod drops the backoff and the reasons of a pod", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 1);
    await h.sync(pod);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.reason).toBe("CrashLoopBackOff");
    h.rm.forgetPod(pod.metadata.uid!);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")).toBeUndefined();
    await h.sync(pod);
    expect(h.calls()).toContain("StartContainer");
  });
});

describe("spec changes", () => {
  test("a container whose image changed is killed with the pod's grace period and started again", async () => {
    h.fake.addImage("docker.io/library/busybox:1.37");
    const pod = uniquePod({ containers: [c("a"), c("b")] });
    await h.sync(pod);
    const old = lastId("a");
    pod.spec.containers[0].image = "docker.io/library/busybox:1.37";
    await h.sync(pod);
    expect(h.calls()).toEqual(["StopContainer", "ImageStatus", "ImageStatus", "CreateContainer", "StartContainer"]);
    const stop = h.fake.calls.find((x) => x.method === "StopContainer")!.request as unknown as { containerId: string; timeout: bigint };
    expect(stop).toMatchObject({ containerId: old, timeout: 30n });
    expect(states("a")).toEqual([ContainerState.CONTAINER_EXITED, ContainerState.CONTAINER_RUNNING]);
    expect(states("b")).toEqual([ContainerState.CONTAINER_RUNNING]);
  });

  test("a container in unknown state is stopped before it is started again", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    // Simulate an unknown state as the runtime reports it.
    const status = await h.status(pod);
    status.containerStatuses[0].state = "unknown";
    h.fake.clearCalls();
    await h.rm.syncPod(pod, status, { signal: h.signal });
    expect(h.calls().slice(0, 2)).toEqual(["StopContainer", "ImageStatus"]);
    expect(h.calls()).toContain("StartContainer");
  });
});
