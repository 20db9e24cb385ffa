import { describe, expect, test } from "bun:test";
import type { Container, ContainerStatus, Pod } from "../../../src/api/index.ts";
import { convertToAPIContainerStatuses, type WaitingReason } from "../../../src/status/container-statuses.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { c, podWith, running } from "./states.ts";
import { exited, iso, rc, runtimeStatus, T0 } from "./runtime.ts";

const noReason: WaitingReason = () => undefined;

function convert(
  pod: Pod,
  status: RuntimePodStatus,
  opts: { previous?: ContainerStatus[]; waitingReason?: WaitingReason; isInit?: boolean; runtimeName?: string } = {},
) {
  const containers: Container[] = opts.isInit ? (pod.spec.initContainers ?? []) : pod.spec.containers;
  return convertToAPIContainerStatuses({
    pod,
    podStatus: status,
    previous: opts.previous,
    containers,
    hasInitContainers: (pod.spec.initContainers?.length ?? 0) > 0,
    isInit: opts.isInit ?? false,
    waitingReason: opts.waitingReason ?? noReason,
    runtimeName: opts.runtimeName ?? "containerd",
  });
}

describe("container statuses from the runtime", () => {
  test("a container not created yet waits with ContainerCreating (PodInitializing when the pod has init containers)", () => {
    expect(convert(podWith({ containers: [c("app")] }), runtimeStatus([]))[0]!.state).toEqual({ waiting: { reason: "ContainerCreating" } });
    const withInit = podWith({ initContainers: [c("init")], containers: [c("app")] });
    expect(convert(withInit, runtimeStatus([]))[0]!.state).toEqual({ waiting: { reason: "PodInitializing" } });
    expect(convert(withInit, runtimeStatus([]), { isInit: true })[0]!.state).toEqual({ waiting: { reason: "PodInitializing" } });
  });

  test("a running container: started time, containerd:// ID, image and resolved image ID, restart count", () => {
    const [status] = convert(podWith({ containers: [c("app")] }), runtimeStatus([rc("app", { restartCount: 3 })]));
    expect(status).toEqual({
      name: "app",
      state: { running: { startedAt: iso(T0 + 1_000) } },
      ready: false,
      restartCount: 3,
      image: "docker.io/library/busybox:1.36",
      imageID: "docker.io/library/busybox@sha256:abc",
      containerID: "containerd://app-id",
    });
  });

  test("the containerID prefix is the runtime name", () => {
    const [status] = convert(podWith({ containers: [c("app")] }), runtimeStatus([rc("app")]), { runtimeName: "cri-o" });
    expect(status!.containerID).toBe("cri-o://app-id");
  });

  test("an exited container is terminated with the runtime's reason (Completed, Error, OOMKilled)", () => {
    const pod = podWith({ containers: [c("a"), c("b"), c("o")], restartPolicy: "Never" });
    const statuses = convert(pod, runtimeStatus([exited("a", 0), exited("b", 2, { message: "boom" }), exited("o", 137, { reason: "OOMKilled" })]));
    expect(statuses.map((s) => s.state?.terminated)).toEqual([
      { exitCode: 0, reason: "Completed", startedAt: iso(T0 + 1_000), finishedAt: iso(T0 + 5_000), containerID: "containerd://a-id" },
      { exitCode: 2, reason: "Error", message: "boom", startedAt: iso(T0 + 1_000), finishedAt: iso(T0 + 5_000), containerID: "containerd://b-id" },
      { exitCode: 137, reason: "OOMKilled", startedAt: iso(T0 + 1_000), finishedAt: iso(T0 + 5_000), containerID: "containerd://o-id" },
    ]);
  });

  test("a created but not started container waits without a reason", () => {
    const [status] = convert(podWith({ containers: [c("app")] }), runtimeStatus([rc("app", { state: "created" })]));
    expect(status!.state).toEqual({ waiting: {} });
  });

  test("the newest container sets the state, the one before it the last state; older ones are ignored", () => {
    const pod = podWith({ containers: [c("app")] });
    const status = runtimeStatus([
      exited("app", 1, { id: "old", createdAt: T0 - 20_000, restartCount: 0 }),
      rc("app", { id: "new", createdAt: T0, restartCount: 2 }),
      exited("app", 1, { id: "mid", createdAt: T0 - 10_000, restartCount: 1, message: "second" }),
    ]);
    const [api] = convert(pod, status);
    expect(api!.containerID).toBe("containerd://new");
    expect(api!.restartCount).toBe(2);
    expect(api!.lastState?.terminated?.containerID).toBe("containerd://mid");
    expect(api!.lastState?.terminated?.message).toBe("second");
  });

  test("a crash-looping container waits with CrashLoopBackOff and its exit moves to the last state", () => {
    const pod = podWith({ containers: [c("app")] });
    const waitingReason: WaitingReason = (name) => (name === "app" ? { reason: "CrashLoopBackOff", message: "back-off 10s restarting failed container" } : undefined);
    const [api] = convert(pod, runtimeStatus([exited("app", 1, { restartCount: 1 })]), { waitingReason });
    expect(api!.state).toEqual({ waiting: { reason: "CrashLoopBackOff", message: "back-off 10s restarting failed container" } });
    expect(api!.lastState?.terminated?.exitCode).toBe(1);
    expect(api!.restartCount).toBe(1);
  });

  for (const reason of ["ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError"]) {
    test(`a container that never started waits with ${reason}`, () => {
      const [api] = convert(podWith({ containers: [c("app")] }), runtimeStatus([]), { waitingReason: () => ({ reason, message: "details" }) });
      expect(api!.state).toEqual({ waiting: { reason, message: "details" } });
      expect(api!.lastState).toBeUndefined();
    });
  }

  test("no waiting reason for containers that will not be restarted", () => {
    const reason: WaitingReason = () => ({ reason: "CrashLoopBackOff", message: "" });
    const never = convert(podWith({ containers: [c("app")], restartPolicy: "Never" }), runtimeStatus([exited("app", 1)]), { waitingReason: reason });
    expect(never[0]!.state?.terminated?.exitCode).toBe(1);
    const onFailure = convert(podWith({ containers: [c("app")], restartPolicy: "OnFailure" }), runtimeStatus([exited("app", 0)]), { waitingReason: reason });
    expect(onFailure[0]!.state?.terminated?.reason).toBe("Completed");
    const running = convert(podWith({ containers: [c("app")] }), runtimeStatus([rc("app")]), { waitingReason: reason });
    expect(running[0]!.state?.running).toBeDefined();
    const deleted = podWith({ containers: [c("app")] });
    deleted.metadata.deletionTimestamp = iso(T0);
    expect(convert(deleted, runtimeStatus([exited("app", 1)]), { waitingReason: reason })[0]!.state?.terminated).toBeDefined();
  });

  test("an init container that exited 0 stays terminated; a failed one waits to be restarted", () => {
    const pod = podWith({ initContainers: [c("ok"), c("bad")], containers: [c("app")] });
    const reason: WaitingReason = () => ({ reason: "CrashLoopBackOff", message: "" });
    const statuses = convert(pod, runtimeStatus([exited("ok", 0), exited("bad", 1)]), { isInit: true, waitingReason: reason });
    expect(statuses.map((s) => s.name)).toEqual(["ok", "bad"]);
    expect(statuses[0]!.state?.terminated?.reason).toBe("Completed");
    expect(statuses[1]!.state).toEqual({ waiting: { reason: "CrashLoopBackOff" } });
  });

  test("a container that vanished after running counts as terminated with ContainerStatusUnknown", () => {
    const pod = podWith({ containers: [c("containerA"), c("containerB")] });
    const previous = [running("containerA"), running("containerB")];
    const expected = (restartCount: number) => ({
      state: { waiting: { reason: "ContainerCreating" } },
      lastState: {
        terminated: {
          exitCode: 137,
          reason: "ContainerStatusUnknown",
          message: "The container could not be located when the pod was deleted.  The container used to be Running",
        },
      },
      restartCount,
    });
    const pick = (s: ContainerStatus) => ({ state: s.state, lastState: s.lastState, restartCount: s.restartCount });
    expect(convert(pod, runtimeStatus([]), { previous }).map(pick)).toEqual([expected(1), expected(1)]);
    pod.metadata.deletionTimestamp = iso(T0);
    expect(convert(pod, runtimeStatus([]), { previous }).map(pick)).toEqual([expected(0), expected(0)]);
  });

  test("a container the runtime reports as unknown after running is terminated and counted as a restart", () => {
    const pod = podWith({ containers: [c("app")] });
    const [api] = convert(pod, runtimeStatus([rc("app", { state: "unknown", restartCount: 0 })]), { previous: [{ ...running("app"), restartCount: 4 }] });
    expect(api!.state?.terminated).toEqual({ exitCode: 137, reason: "ContainerStatusUnknown", message: "The container could not be located when the pod was terminated" });
    expect(api!.restartCount).toBe(5);
  });

  test("a previously terminated status is kept while the runtime has nothing newer", () => {
    const previous: ContainerStatus = { name: "app", state: { terminated: { exitCode: 3, reason: "Error" } }, ready: false, restartCount: 2, image: "x", imageID: "y" };
    const [api] = convert(podWith({ containers: [c("app")], restartPolicy: "Never" }), runtimeStatus([]), { previous: [previous] });
    expect(api).toEqual(previous);
  });

  test("regular containers are sorted by name; init containers keep the spec order", () => {
    const pod = podWith({ initContainers: [c("z-init"), c("a-init")], containers: [c("web"), c("db"), c("cache")] });
    expect(convert(pod, runtimeStatus([])).map((s) => s.name)).toEqual(["cache", "db", "web"]);
    expect(convert(pod, runtimeStatus([]), { isInit: true }).map((s) => s.name)).toEqual(["z-init", "a-init"]);
  });
});
