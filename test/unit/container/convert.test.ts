// The one CRI → runtime-view converter, shared by the runtime manager's views and the evented PLEG.
import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "bun:test";
import { ContainerState, labels } from "../../../src/cri/index.ts";
import { ContainerStatusSchema } from "../../../src/cri/testing.ts";
import { containerStatus, sandboxStatus } from "../runtime/fixtures.ts";
import { nanosToMs, runningPodFromStatus, toContainerStatus, type RuntimePodStatus } from "../../../src/container/index.ts";

describe("nanoseconds become milliseconds with the microseconds kept", () => {
  const cases: [string, bigint, number][] = [
    ["unset stays 0", 0n, 0],
    ["whole milliseconds", 7_000_000n, 7],
    ["half a millisecond", 1_500_000n, 1.5],
    ["nanoseconds below a microsecond are dropped", 1_999n, 0.001],
    ["an epoch time keeps its microseconds", 1_767_225_600_123_456_789n, 1_767_225_600_123.456],
  ];
  for (const [name, ns, ms] of cases) test(name, () => expect(nanosToMs(ns)).toBe(ms));

  test("two containers created within one millisecond still order", () => {
    expect(nanosToMs(1_767_225_600_123_400_000n)).toBeLessThan(nanosToMs(1_767_225_600_123_900_000n));
  });
});

describe("toContainerStatus", () => {
  const base = {
    id: "c1",
    metadata: { name: "meta-name", attempt: 0 },
    createdAt: 1_000_000n,
    startedAt: 2_000_000n,
    finishedAt: 3_500_000n,
    exitCode: 2,
    reason: "Error",
    message: "boom",
    imageRef: "busybox@sha256:ref",
    imageId: "sha256:id",
    labels: { [labels.KubernetesContainerNameLabel]: "app", [labels.KubernetesContainerTypeLabel]: "init" },
    annotations: { [labels.ContainerHashLabel]: "1a2b", [labels.ContainerRestartCountLabel]: "3" },
  };

  test("an exited container keeps its times, exit code and reason; identity from labels and annotations", () => {
    const s = toContainerStatus(create(ContainerStatusSchema, { ...base, state: ContainerState.CONTAINER_EXITED }), "sb1");
    expect(s).toMatchObject({
      id: "c1",
      name: "app",
      state: "exited",
      createdAt: 1,
      startedAt: 2,
      finishedAt: 3.5,
      exitCode: 2,
      reason: "Error",
      message: "boom",
      imageRef: "sha256:id",
      hash: "1a2b",
      restartCount: 3,
      containerType: "init",
      sandboxId: "sb1",
    });
  });

  test("a running container has no finish, exit code or reason; a created one never started", () => {
    const running = toContainerStatus(create(ContainerStatusSchema, { ...base, state: ContainerState.CONTAINER_RUNNING }));
    expect(running).toMatchObject({ state: "running", startedAt: 2, finishedAt: 0, exitCode: 0, reason: "", message: "" });
    const created = toContainerStatus(create(ContainerStatusSchema, { ...base, state: ContainerState.CONTAINER_CREATED }));
    expect(created).toMatchObject({ state: "created", startedAt: 0, finishedAt: 0 });
  });
});

test("runningPodFromStatus keeps running containers and every sandbox", () => {
  const status: RuntimePodStatus = {
    uid: "u",
    name: "p",
    namespace: "default",
    ips: [],
    sandboxStatuses: [sandboxStatus({ id: "s2", state: "ready", createdAt: 2 }), sandboxStatus({ id: "s1", state: "notready", createdAt: 1 })],
    containerStatuses: [
      containerStatus("1", { name: "a", image: "busybox" }, { state: "running" }),
      containerStatus("2", { name: "b", image: "busybox" }, { state: "exited" }),
    ],
  };
  const rp = runningPodFromStatus(status);
  expect(rp.containers.map((c) => c.id)).toEqual(["1"]);
  expect(rp.sandboxes.map((s) => [s.id, s.state])).toEqual([
    ["s2", "running"],
    ["s1", "exited"],
  ]);
});
