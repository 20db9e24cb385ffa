// Ported from kubelet_pods_test.go TestPodPhaseWithContainerRestartPolicy and
// TestPodPhaseWithContainerRestartPolicyInitContainers (ContainerRestartRules on, as in 1.37), with
// rows for restartPolicyRules on exit codes.
import { describe, expect, test } from "bun:test";
import type { Container, ContainerRestartRule, ContainerStatus, PodPhase, PodSpec } from "../../../src/api/index.ts";
import { getPhase } from "../../../src/status/phase.ts";
import { c, failed, podWith, running, succeeded, waitingWithLastTermination } from "./states.ts";

const exitedWith = (name: string, exitCode: number): ContainerStatus => ({ ...succeeded(name), state: { terminated: { exitCode } } });
const withPolicy = (name: string, restartPolicy: Container["restartPolicy"], restartPolicyRules?: ContainerRestartRule[]) =>
  c(name, { restartPolicy, ...(restartPolicyRules && { restartPolicyRules }) });
const restartOn = (operator: "In" | "NotIn", ...values: number[]): ContainerRestartRule[] => [{ action: "Restart", exitCodes: { operator, values } }];

interface Case {
  name: string;
  spec: Partial<PodSpec>;
  regular?: ContainerStatus[];
  init?: ContainerStatus[];
  expected: PodPhase;
}

const cases: Case[] = [
  {
    name: "container with restart policy Never failed",
    spec: { containers: [withPolicy("failed-container", "Never")], restartPolicy: "Always" },
    regular: [failed("failed-container")],
    expected: "Failed",
  },
  {
    name: "container with restart policy OnFailure failed",
    spec: { containers: [withPolicy("failed-container", "OnFailure")], restartPolicy: "Always" },
    regular: [failed("failed-container")],
    expected: "Running",
  },
  {
    name: "container with restart policy Always failed",
    spec: { containers: [withPolicy("failed-container", "Always")], restartPolicy: "Always" },
    regular: [failed("failed-container")],
    expected: "Running",
  },
  {
    name: "at least one container with a restartable container-level policy stopped (pod Never)",
    spec: { containers: [withPolicy("containerA", "Always"), c("containerB")], restartPolicy: "Never" },
    regular: [succeeded("containerA"), failed("containerB")],
    expected: "Running",
  },
  {
    name: "all containers without a restartable container-level policy stopped, one failed",
    spec: { containers: [withPolicy("containerA", "Never"), withPolicy("containerB", "OnFailure")], restartPolicy: "Always" },
    regular: [failed("containerA"), succeeded("containerB")],
    expected: "Failed",
  },
  {
    name: "all containers succeeded under their own Never and OnFailure",
    spec: { containers: [withPolicy("containerA", "Never"), withPolicy("containerB", "OnFailure")], restartPolicy: "Always" },
    regular: [succeeded("containerA"), succeeded("containerB")],
    expected: "Succeeded",
  },
  {
    name: "pod Never, no container policy, one succeeded and one failed",
    spec: { containers: [c("containerA"), c("containerB")], restartPolicy: "Never" },
    regular: [succeeded("containerA"), failed("containerB")],
    expected: "Failed",
  },
  {
    name: "pod Never, a rule Restart on exit code 42 matched",
    spec: { containers: [withPolicy("main", "Never", restartOn("In", 42))], restartPolicy: "Never" },
    regular: [exitedWith("main", 42)],
    expected: "Running",
  },
  {
    name: "pod Never, a rule Restart on exit code 42, the container exited 1",
    spec: { containers: [withPolicy("main", "Never", restartOn("In", 42))], restartPolicy: "Never" },
    regular: [exitedWith("main", 1)],
    expected: "Failed",
  },
  {
    name: "pod Never, a rule Restart NotIn [0], the container exited 0",
    spec: { containers: [withPolicy("main", "Never", restartOn("NotIn", 0))], restartPolicy: "Never" },
    regular: [exitedWith("main", 0)],
    expected: "Succeeded",
  },
  {
    name: "pod Never, a rule Restart NotIn [0], the container waits to restart after exiting 3",
    spec: { containers: [withPolicy("main", "Never", restartOn("NotIn", 0))], restartPolicy: "Never" },
    regular: [waitingWithLastTermination("main", 3)],
    expected: "Running",
  },
  {
    name: "pod Never, a rule with the RestartAllContainers action (its gate is off) falls back to the container's Never",
    spec: { containers: [withPolicy("main", "Never", [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }])], restartPolicy: "Never" },
    regular: [exitedWith("main", 42)],
    expected: "Failed",
  },
  {
    name: "pod Always, a container Never running beside one that failed under it",
    spec: { containers: [withPolicy("a", "Never"), c("b")], restartPolicy: "Always" },
    regular: [failed("a"), running("b")],
    expected: "Running",
  },
  // Init containers (TestPodPhaseWithContainerRestartPolicyInitContainers).
  {
    name: "init container with restart policy Never failed",
    spec: { initContainers: [withPolicy("failed-container", "Never")], containers: [c("container")], restartPolicy: "Always" },
    init: [failed("failed-container")],
    expected: "Failed",
  },
  {
    name: "init container with restart policy OnFailure failed (pod Never)",
    spec: { initContainers: [withPolicy("failed-container", "OnFailure")], containers: [c("container")], restartPolicy: "Never" },
    init: [failed("failed-container")],
    expected: "Pending",
  },
  {
    name: "sidecar (restart policy Always) failed (pod Never)",
    spec: { initContainers: [withPolicy("failed-container", "Always")], containers: [c("container")], restartPolicy: "Never" },
    init: [failed("failed-container")],
    expected: "Pending",
  },
  {
    name: "init container failed with a matching Restart rule (pod Never)",
    spec: { initContainers: [withPolicy("init", "Never", restartOn("In", 42))], containers: [c("container")], restartPolicy: "Never" },
    init: [waitingWithLastTermination("init", 42)],
    expected: "Pending",
  },
];

describe("getPhase with container restart policies and rules", () => {
  for (const k of cases) {
    test(`${k.name} → ${k.expected}`, () => {
      expect(getPhase(podWith(k.spec), k.regular ?? [], k.init ?? [], false, true)).toBe(k.expected);
    });
  }
});
