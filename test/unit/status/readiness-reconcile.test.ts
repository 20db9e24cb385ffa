// When a status-only change (a client writing a readiness gate's condition) must sync the pod
// (status_manager.go NeedToReconcilePodReadiness): the upstream spec "should support pod
// readiness gates" moves gate conditions with status patches and waits for Ready to follow.
import { describe, expect, test } from "bun:test";
import type { PodCondition, PodStatus } from "../../../src/api/index.ts";
import { needToReconcilePodReadiness } from "../../../src/status/index.ts";
import { c, podWith, readyStatus } from "./states.ts";

const gates = { readinessGates: [{ conditionType: "k8s.io/test-condition1" }, { conditionType: "k8s.io/test-condition2" }], containers: [c("main")] };
const cond = (type: string, status: "True" | "False", message?: string): PodCondition => ({ type, status, ...(message && { message }) });
const gateMissing = 'corresponding condition of pod readiness gate "k8s.io/test-condition2" does not exist.';
const gate1False = 'the status of pod readiness gate "k8s.io/test-condition1" is not "True", but False';

const cases: { name: string; spec?: object; status: PodStatus; expected: boolean }[] = [
  { name: "no readiness gates", spec: { containers: [c("main")] }, status: { phase: "Running", conditions: [cond("Ready", "False")], containerStatuses: [readyStatus("main")] }, expected: false },
  { name: "no Ready condition yet", status: { phase: "Running", conditions: [cond("k8s.io/test-condition1", "True")], containerStatuses: [readyStatus("main")] }, expected: false },
  {
    name: "both gates True while Ready is False",
    status: {
      phase: "Running",
      conditions: [cond("Ready", "False", gateMissing), cond("k8s.io/test-condition1", "True"), cond("k8s.io/test-condition2", "True")],
      containerStatuses: [readyStatus("main")],
    },
    expected: true,
  },
  {
    name: "one gate set, Ready False with the old message",
    status: {
      phase: "Running",
      conditions: [cond("Ready", "False", 'corresponding condition of pod readiness gate "k8s.io/test-condition1" does not exist., ' + gateMissing), cond("k8s.io/test-condition1", "True")],
      containerStatuses: [readyStatus("main")],
    },
    expected: true,
  },
  {
    name: "one gate set, Ready False with the current message",
    status: { phase: "Running", conditions: [cond("Ready", "False", gateMissing), cond("k8s.io/test-condition1", "True")], containerStatuses: [readyStatus("main")] },
    expected: false,
  },
  {
    name: "a gate turned False while Ready is True",
    status: {
      phase: "Running",
      conditions: [cond("Ready", "True"), cond("k8s.io/test-condition1", "False"), cond("k8s.io/test-condition2", "True")],
      containerStatuses: [readyStatus("main")],
    },
    expected: true,
  },
  {
    name: "Ready False with the gate message already",
    status: {
      phase: "Running",
      conditions: [cond("Ready", "False", gate1False), cond("k8s.io/test-condition1", "False"), cond("k8s.io/test-condition2", "True")],
      containerStatuses: [readyStatus("main")],
    },
    expected: false,
  },
  {
    name: "both gates True and Ready True",
    status: { phase: "Running", conditions: [cond("Ready", "True"), cond("k8s.io/test-condition1", "True"), cond("k8s.io/test-condition2", "True")], containerStatuses: [readyStatus("main")] },
    expected: false,
  },
];

describe("needToReconcilePodReadiness", () => {
  for (const k of cases) {
    test(k.name, () => {
      const pod = { ...podWith(k.spec ?? gates), status: k.status };
      expect(needToReconcilePodReadiness(pod)).toBe(k.expected);
    });
  }
});
