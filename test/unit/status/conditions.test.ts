// Ported from status/generate_test.go (ContainersReady, Ready, Initialized, ReadyToStartContainers).
import { describe, expect, test } from "bun:test";
import type { ContainerStatus, PodCondition, PodPhase, PodSpec } from "../../../src/api/index.ts";
import {
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
} from "../../../src/status/conditions.ts";
import type { RuntimePodStatus, RuntimeSandboxStatus } from "../../../src/container/index.ts";
import { sandbox } from "./runtime.ts";
import { c, podWith, readyStatus, notReady, running, sidecar, started, succeeded, waitingWithLastTermination } from "./states.ts";

type Expect = [status: "True" | "False", reason?: string, message?: string];
const shape = (cond: PodCondition): Expect => {
  const out: Expect = [cond.status as "True" | "False"];
  if (cond.reason || cond.message) out.push(cond.reason ?? "");
  if (cond.message) out.push(cond.message);
  return out;
};

const one: Partial<PodSpec> = { containers: [c("1234")] };
const two: Partial<PodSpec> = { containers: [c("1234"), c("5678")] };

const readyCases: { name: string; spec: Partial<PodSpec>; statuses?: ContainerStatus[]; phase?: PodPhase; expected: Expect }[] = [
  { name: "statuses unknown", spec: {}, expected: ["False", "UnknownContainerStatuses"] },
  { name: "no containers", spec: {}, statuses: [], expected: ["True"] },
  { name: "a container without status", spec: one, statuses: [], expected: ["False", "ContainersNotReady", "containers with unknown status: [1234]"] },
  { name: "all ready", spec: two, statuses: [readyStatus("1234"), readyStatus("5678")], expected: ["True"] },
  { name: "one unknown", spec: two, statuses: [readyStatus("1234")], expected: ["False", "ContainersNotReady", "containers with unknown status: [5678]"] },
  { name: "one unready", spec: two, statuses: [readyStatus("1234"), notReady("5678")], expected: ["False", "ContainersNotReady", "containers with unready status: [5678]"] },
  {
    name: "unknown and unready",
    spec: { containers: [c("a"), c("b"), c("d")] },
    statuses: [notReady("a"), readyStatus("d")],
    expected: ["False", "ContainersNotReady", "containers with unknown status: [b], containers with unready status: [a]"],
  },
  { name: "succeeded pod", spec: one, statuses: [notReady("1234")], phase: "Succeeded", expected: ["False", "PodCompleted"] },
  { name: "failed pod", spec: one, statuses: [readyStatus("1234")], phase: "Failed", expected: ["False", "PodFailed"] },
  {
    name: "an unready sidecar counts, a regular init container does not",
    spec: { initContainers: [c("init"), sidecar("side")], containers: [c("main")] },
    statuses: [notReady("init"), notReady("side"), readyStatus("main")],
    expected: ["False", "ContainersNotReady", "containers with unready status: [side]"],
  },
];

describe("ContainersReady and Ready conditions", () => {
  for (const k of readyCases) {
    test(`ContainersReady: ${k.name}`, () => {
      const cond = generateContainersReadyCondition(podWith(k.spec), k.statuses, k.phase ?? "Running");
      expect(cond.type).toBe("ContainersReady");
      expect(shape(cond)).toEqual(k.expected);
    });
    test(`Ready: ${k.name}`, () => {
      const cond = generatePodReadyCondition(podWith(k.spec), [], k.statuses, k.phase ?? "Running");
      expect(cond.type).toBe("Ready");
      expect(shape(cond)).toEqual(k.expected);
    });
  }

  const gate = (...types: string[]) => ({ readinessGates: types.map((conditionType) => ({ conditionType })) }) as Partial<PodSpec>;
  const cond = (type: string, status: "True" | "False"): PodCondition => ({ type, status });
  const gateCases: { name: string; spec: Partial<PodSpec>; conditions: PodCondition[]; statuses?: ContainerStatus[]; expected: Expect }[] = [
    { name: "a missing gate condition", spec: gate("gate1"), conditions: [], expected: ["False", "ReadinessGatesNotReady", 'corresponding condition of pod readiness gate "gate1" does not exist.'] },
    { name: "a False gate", spec: gate("gate1"), conditions: [cond("gate1", "False")], expected: ["False", "ReadinessGatesNotReady", 'the status of pod readiness gate "gate1" is not "True", but False'] },
    { name: "a True gate", spec: gate("gate1"), conditions: [cond("gate1", "True")], expected: ["True"] },
    {
      name: "one of two gates missing",
      spec: gate("gate1", "gate2"),
      conditions: [cond("gate1", "True")],
      expected: ["False", "ReadinessGatesNotReady", 'corresponding condition of pod readiness gate "gate2" does not exist.'],
    },
    {
      name: "one of two gates False",
      spec: gate("gate1", "gate2"),
      conditions: [cond("gate1", "True"), cond("gate2", "False")],
      expected: ["False", "ReadinessGatesNotReady", 'the status of pod readiness gate "gate2" is not "True", but False'],
    },
    { name: "both gates True", spec: gate("gate1", "gate2"), conditions: [cond("gate1", "True"), cond("gate2", "True")], expected: ["True"] },
    {
      name: "unready containers win over gates",
      spec: { ...gate("gate1"), containers: [c("1234")] },
      conditions: [cond("gate1", "True")],
      statuses: [notReady("1234")],
      expected: ["False", "ContainersNotReady", "containers with unready status: [1234]"],
    },
  ];
  for (const k of gateCases) {
    test(`Ready with readiness gates: ${k.name}`, () => {
      expect(shape(generatePodReadyCondition(podWith(k.spec), k.conditions, k.statuses ?? [], "Running"))).toEqual(k.expected);
    });
  }
});

describe("Initialized condition", () => {
  const oneInit: Partial<PodSpec> = { initContainers: [c("1234")] };
  const twoInit: Partial<PodSpec> = { initContainers: [c("1234"), c("5678")] };
  const cases: { name: string; spec: Partial<PodSpec>; statuses?: ContainerStatus[]; phase?: PodPhase; expected: Expect }[] = [
    { name: "statuses unknown with init containers", spec: twoInit, expected: ["False", "UnknownContainerStatuses"] },
    { name: "no init containers", spec: {}, statuses: [], expected: ["True"] },
    { name: "an init container without status", spec: oneInit, statuses: [], expected: ["False", "ContainersNotInitialized", "containers with unknown status: [1234]"] },
    { name: "all init containers ready", spec: twoInit, statuses: [readyStatus("1234"), readyStatus("5678")], expected: ["True"] },
    { name: "one unknown", spec: twoInit, statuses: [readyStatus("1234")], expected: ["False", "ContainersNotInitialized", "containers with unknown status: [5678]"] },
    {
      name: "one incomplete",
      spec: twoInit,
      statuses: [readyStatus("1234"), notReady("5678")],
      expected: ["False", "ContainersNotInitialized", "containers with incomplete status: [5678]"],
    },
    { name: "succeeded pod", spec: oneInit, statuses: [readyStatus("1234")], phase: "Succeeded", expected: ["True", "PodCompleted"] },
    {
      name: "a sidecar must have started",
      spec: { initContainers: [sidecar("side")], containers: [c("main")] },
      statuses: [running("side")],
      expected: ["False", "ContainersNotInitialized", "containers with incomplete status: [side]"],
    },
    { name: "a started sidecar", spec: { initContainers: [sidecar("side")], containers: [c("main")] }, statuses: [started("side")], expected: ["True"] },
    {
      name: "a restarting sidecar after a regular container ran",
      spec: { initContainers: [sidecar("side")], containers: [c("main")] },
      statuses: [waitingWithLastTermination("side", 1), running("main")],
      expected: ["True"],
    },
    {
      name: "a regular init container that exited 0 is ready (given its ready flag)",
      spec: oneInit,
      statuses: [{ ...succeeded("1234"), ready: true }],
      expected: ["True"],
    },
  ];
  for (const k of cases) {
    test(k.name, () => {
      const cond = generatePodInitializedCondition(podWith(k.spec), k.statuses, k.phase ?? "Running");
      expect(cond.type).toBe("Initialized");
      expect(shape(cond)).toEqual(k.expected);
    });
  }
});

describe("PodReadyToStartContainers condition", () => {
  const status = (...sandboxStatuses: RuntimeSandboxStatus[]): RuntimePodStatus => ({ uid: "uid-1", name: "p", namespace: "ns", ips: [], sandboxStatuses, containerStatuses: [] });
  const cases: { name: string; hostNetwork?: boolean; status: RuntimePodStatus; expected: "True" | "False" }[] = [
    { name: "no sandbox", status: status(), expected: "False" },
    { name: "sandbox not ready", status: status(sandbox({ state: "notready" })), expected: "False" },
    { name: "sandbox ready without an IP", status: status(sandbox({ ips: [] })), expected: "False" },
    { name: "sandbox ready with an IP", status: status(sandbox({})), expected: "True" },
    { name: "hostNetwork sandbox without an IP", hostNetwork: true, status: status(sandbox({ ips: [], hostNetwork: true })), expected: "True" },
    { name: "sandbox network mode differs from the spec", hostNetwork: true, status: status(sandbox({})), expected: "False" },
    { name: "two ready sandboxes", status: status(sandbox({ id: "s2" }), sandbox({})), expected: "False" },
  ];
  for (const k of cases) {
    test(k.name, () => {
      const cond = generatePodReadyToStartContainersCondition(podWith({ hostNetwork: k.hostNetwork }), k.status);
      expect([cond.type, cond.status]).toEqual(["PodReadyToStartContainers", k.expected]);
    });
  }
});
