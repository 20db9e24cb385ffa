import { describe, expect, test } from "bun:test";
import {
  computeEvents,
  computePodEvents,
  containerIdsOf,
  generateEvents,
  type PlegContainerState,
} from "../../../src/pleg/compute-events.ts";
import type { ContainerState } from "../../../src/container/index.ts";
import { ref, runtimePod } from "./helpers.ts";

describe("generateEvents follows the kubelet's state table", () => {
  const cases: [PlegContainerState, PlegContainerState, string[]][] = [
    ["non-existent", "running", ["ContainerStarted"]],
    ["exited", "running", ["ContainerStarted"]],
    ["unknown", "running", ["ContainerStarted"]],
    ["running", "exited", ["ContainerDied"]],
    ["non-existent", "exited", ["ContainerDied"]],
    ["running", "unknown", ["ContainerChanged"]],
    ["running", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["unknown", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["exited", "non-existent", ["ContainerRemoved"]],
    ["running", "running", []],
    ["exited", "exited", []],
    ["unknown", "unknown", []],
    ["non-existent", "non-existent", []],
  ];
  for (const [from, to, want] of cases) {
    test(`${from} → ${to} gives [${want.join(", ")}]`, () => {
      const events = generateEvents("uid", "c1", from, to);
      expect(events.map((e) => e.type)).toEqual(want as never);
      for (const e of events) expect(e).toMatchObject({ id: "uid", data: "c1" });
    });
  }
});

describe("computeEvents reads container states from both views of the pod", () => {
  const cases: [string, ContainerState | undefined, ContainerState | undefined, string[]][] = [
    ["a new running container is started", undefined, "running", ["ContainerStarted"]],
    ["a created container is only changed (never sent)", undefined, "created", ["ContainerChanged"]],
    ["a container that exits died", "running", "exited", ["ContainerDied"]],
    ["a running container that vanished died and was removed", "running", undefined, ["ContainerDied", "ContainerRemoved"]],
    ["an exited container that vanished was removed", "exited", undefined, ["ContainerRemoved"]],
    ["a container that stays running says nothing", "running", "running", []],
  ];
  for (const [name, before, after, want] of cases) {
    test(name, () => {
      const oldPod = before ? runtimePod("p", [ref("c1", before)]) : runtimePod("p", []);
      const newPod = after ? runtimePod("p", [ref("c1", after)]) : undefined;
      expect(computeEvents(oldPod, newPod, "c1").map((e) => e.type)).toEqual(want as never);
    });
  }

  test("the pod id comes from whichever view exists", () => {
    expect(computeEvents(undefined, runtimePod("new", [ref("c1", "running")]), "c1")[0]!.id).toBe("new");
    expect(computeEvents(runtimePod("old", [ref("c1", "exited")]), undefined, "c1")[0]!.id).toBe("old");
  });
});

describe("sandboxes count as containers", () => {
  test("containerIdsOf unions containers and sandboxes of both views, once each", () => {
    const oldPod = runtimePod("p", [ref("c1", "running")], [ref("s1", "running")]);
    const newPod = runtimePod("p", [ref("c1", "exited"), ref("c2", "running")], [ref("s1", "exited")]);
    expect(containerIdsOf(oldPod, newPod).sort()).toEqual(["c1", "c2", "s1"]);
  });

  test("a sandbox that stops yields ContainerDied with its id", () => {
    const oldPod = runtimePod("p", [], [ref("s1", "running")]);
    const newPod = runtimePod("p", [], [ref("s1", "exited")]);
    expect(computePodEvents(oldPod, newPod)).toEqual([{ id: "p", type: "ContainerDied", data: "s1" }]);
  });
});
