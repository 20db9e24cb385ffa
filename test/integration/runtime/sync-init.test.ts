import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ContainerState, PodSandboxState } from "../../../src/cri/index.ts";
import { c, containersNamed, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

const state = (name: string) => containersNamed(h, name).map((x) => x.state);

describe("syncPod with init containers", () => {
  test("init containers run one at a time and must succeed before regular containers start", async () => {
    const pod = uniquePod({ initContainers: [c("init1"), c("init2")], containers: [c("app")] });
    await h.sync(pod);
    expect(h.calls()).toEqual(["RunPodSandbox", "PodSandboxStatus", "ImageStatus", "ImageStatus", "CreateContainer", "StartContainer"]);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["init1"]);
    expect(h.fake.state.containers[0].labels["io.kubernetes.container.type"]).toBe("init");

    // Still running: nothing to do.
    await h.sync(pod);
    expect(h.calls()).toEqual([]);

    h.fake.exitContainer(containersNamed(h, "init1")[0].id, 0);
    await h.sync(pod);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["init1", "init2"]);

    h.fake.exitContainer(containersNamed(h, "init2")[0].id, 0);
    await h.sync(pod);
    expect(state("app")).toEqual([ContainerState.CONTAINER_RUNNING]);
    expect(h.calls()).toEqual(["ImageStatus", "ImageStatus", "CreateContainer", "StartContainer"]);
  });

  test("a failed init container is restarted under Always and the app never starts", async () => {
    const pod = uniquePod({ initContainers: [c("init1")], containers: [c("app")] });
    await h.sync(pod);
    h.fake.exitContainer(containersNamed(h, "init1")[0].id, 3);
    await h.sync(pod);
    expect(containersNamed(h, "init1").map((x) => x.attempt)).toEqual([0, 1]);
    expect(state("app")).toEqual([]);
  });

  test("a failed init container under Never kills the pod and nothing restarts", async () => {
    const pod = uniquePod({ restartPolicy: "Never", initContainers: [c("init1")], containers: [c("app")] });
    await h.sync(pod);
    h.fake.exitContainer(containersNamed(h, "init1")[0].id, 3);
    await h.sync(pod);
    expect(h.calls()).toEqual(["StopPodSandbox"]);
    expect(h.fake.state.sandboxes[0].state).toBe(PodSandboxState.SANDBOX_NOTREADY);
    expect(state("init1")).toEqual([ContainerState.CONTAINER_EXITED]);
  });

  test("a failing init container start stops the sync before the regular containers", async () => {
    const pod = uniquePod({ initContainers: [c("init1")], containers: [c("app")] });
    h.fake.failNext("CreateContainer", 2);
    const result = await h.sync(pod);
    expect(result.steps.filter((s) => s.error).map((s) => [s.action, s.target, s.error!.reason])).toEqual([
      ["InitContainer", "init1", "CreateContainerError"],
    ]);
    expect(h.calls()).not.toContain("StartContainer");
  });

  test("when the sandbox dies, all containers are killed, init containers purged and initialization starts over", async () => {
    const pod = uniquePod({ initContainers: [c("init1")], containers: [c("app")] });
    await h.sync(pod);
    const init1 = containersNamed(h, "init1")[0].id;
    h.fake.exitContainer(init1, 0);
    await h.sync(pod);
    h.fake.killSandbox(h.fake.state.sandboxes[0].id);
    await h.sync(pod);
    const calls = h.calls();
    // kill (app is running), stop the old sandbox, purge init1, then a new sandbox with attempt 1 and init1 again.
    expect(calls.slice(0, 5)).toEqual(["StopContainer", "StopPodSandbox", "ContainerStatus", "RemoveContainer", "RunPodSandbox"]);
    expect(h.fake.state.container(init1)).toBeUndefined();
    const newest = h.fake.state.sandboxes.at(-1)!;
    expect(newest.attempt).toBe(1);
    expect(h.fake.state.containers.filter((x) => x.podSandboxId === newest.id).map((x) => x.name)).toEqual(["init1"]);
  });
});

describe("syncPod with sidecars (restartable init containers)", () => {
  test("sidecars start in order, keep running, and then the regular containers start", async () => {
    const pod = uniquePod({
      initContainers: [c("side1", { restartPolicy: "Always" }), c("init2"), c("side3", { restartPolicy: "Always" })],
      containers: [c("app")],
    });
    await h.sync(pod);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["side1"]);
    // side1 runs: init2 may start.
    await h.sync(pod);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["side1", "init2"]);
    h.fake.exitContainer(containersNamed(h, "init2")[0].id, 0);
    await h.sync(pod);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["side1", "init2", "side3"]);
    // The last sidecar is running: the pod is initialized and the app starts; sidecars keep running.
    await h.sync(pod);
    expect(state("app")).toEqual([ContainerState.CONTAINER_RUNNING]);
    expect(state("side1")).toEqual([ContainerState.CONTAINER_RUNNING]);
    expect(state("side3")).toEqual([ContainerState.CONTAINER_RUNNING]);
  });

  test("an exited sidecar is restarted even when the pod's restartPolicy is Never", async () => {
    const pod = uniquePod({ restartPolicy: "Never", initContainers: [c("side", { restartPolicy: "Always" })], containers: [c("app")] });
    await h.sync(pod);
    await h.sync(pod);
    h.fake.exitContainer(containersNamed(h, "side")[0].id, 1);
    await h.sync(pod);
    expect(state("side")).toEqual([ContainerState.CONTAINER_EXITED, ContainerState.CONTAINER_RUNNING]);
  });

  test("sidecars do not keep a finished pod alive", async () => {
    const pod = uniquePod({ restartPolicy: "Never", initContainers: [c("side", { restartPolicy: "Always" })], containers: [c("app")] });
    await h.sync(pod);
    await h.sync(pod);
    h.fake.exitContainer(containersNamed(h, "app")[0].id, 0);
    await h.sync(pod);
    expect(h.calls()).toEqual(["StopContainer", "StopPodSandbox"]);
    expect(state("side")).toEqual([ContainerState.CONTAINER_EXITED]);
  });
});
