import { describe, expect, test } from "bun:test";
import { ContainerEventType, ContainerState } from "../../../src/cri/index.ts";
import { lifecycleEventsFor, podStatusFromEvent } from "../../../src/pleg/event-status.ts";
import { containerEvent } from "./helpers.ts";

describe("a CRI container event maps to the kubelet's lifecycle events", () => {
  const cases: [string, ContainerEventType, string[]][] = [
    ["CREATED only refreshes the cache", ContainerEventType.CONTAINER_CREATED_EVENT, []],
    ["STARTED is ContainerStarted", ContainerEventType.CONTAINER_STARTED_EVENT, ["ContainerStarted"]],
    ["STOPPED is ContainerDied", ContainerEventType.CONTAINER_STOPPED_EVENT, ["ContainerDied"]],
    ["DELETED is ContainerDied then ContainerRemoved", ContainerEventType.CONTAINER_DELETED_EVENT, ["ContainerDied", "ContainerRemoved"]],
  ];
  for (const [name, type, want] of cases) {
    test(name, () => {
      const events = lifecycleEventsFor("u1", containerEvent({ type, containerId: "c1", uid: "u1", createdAtMs: 5 }));
      expect(events.map((e) => e.type)).toEqual(want as never);
      for (const e of events) expect(e).toMatchObject({ id: "u1", data: "c1" });
    });
  }
});

describe("podStatusFromEvent builds the pod status from the event alone", () => {
  test("fills the sandbox and container statuses, newest container first, times in ms", () => {
    const status = podStatusFromEvent(
      containerEvent({
        type: ContainerEventType.CONTAINER_STOPPED_EVENT,
        containerId: "c2",
        uid: "u1",
        createdAtMs: 50,
        sandboxId: "sb9",
        ip: "10.1.0.4",
        containers: [
          { id: "c1", name: "app", state: ContainerState.CONTAINER_EXITED, createdAtMs: 10, restartCount: 0, hash: "1a2b" },
          { id: "c2", name: "app", state: ContainerState.CONTAINER_EXITED, createdAtMs: 20.5, restartCount: 1, hash: "1a2b" },
          { id: "c3", name: "side", state: ContainerState.CONTAINER_RUNNING, createdAtMs: 15 },
        ],
      }),
    )!;
    expect(status).toMatchObject({ uid: "u1", name: "pod-u1", namespace: "default", ips: ["10.1.0.4"] });
    expect(status.sandboxStatuses).toEqual([
      expect.objectContaining({ id: "sb9", state: "ready", uid: "u1", ips: ["10.1.0.4"], attempt: 0, hostNetwork: false }),
    ]);
    expect(status.containerStatuses.map((c) => [c.id, c.name, c.state, c.restartCount, c.createdAt])).toEqual([
      ["c2", "app", "exited", 1, 20.5],
      ["c3", "side", "running", 0, 15],
      ["c1", "app", "exited", 0, 10],
    ]);
    expect(status.containerStatuses[0]).toMatchObject({ hash: "1a2b", sandboxId: "sb9" });
  });

  test("an event without sandbox metadata yields nothing", () => {
    const event = containerEvent({ type: ContainerEventType.CONTAINER_STARTED_EVENT, containerId: "c1", uid: "u1", createdAtMs: 1 });
    event.podSandboxStatus = undefined;
    expect(podStatusFromEvent(event)).toBeUndefined();
  });
});
