// Ported from kubelet_pods_test.go TestPodPhaseWithRestart* (same cases, same expectations).
import { describe, expect, test } from "bun:test";
import type { ContainerStatus, PodPhase, PodSpec } from "../../../src/api/index.ts";
import { getPhase } from "../../../src/status/phase.ts";
import { c, failed, podWith, running, sidecar, started, stopped, succeeded, waiting, waitingWithLastTermination } from "./states.ts";

interface Case {
  name: string;
  regular?: ContainerStatus[];
  init?: ContainerStatus[];
  terminal?: boolean;
  static?: boolean;
  podHasInitialized?: boolean;
  expected: PodPhase;
}

function table(title: string, spec: Partial<PodSpec>, cases: Case[]): void {
  describe(title, () => {
    for (const k of cases) {
      test(`${k.name} → ${k.expected}`, () => {
        const pod = podWith(spec, { static: k.static });
        expect(getPhase(pod, k.regular ?? [], k.init ?? [], k.terminal ?? false, k.podHasInitialized)).toBe(k.expected);
      });
    }
  });
}

const AB = [c("containerA"), c("containerB")];

table("getPhase, restartPolicy Always", { containers: AB, restartPolicy: "Always" }, [
  { name: "waiting", expected: "Pending" },
  { name: "all running", regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "all stopped with restart always", regular: [stopped("containerA"), stopped("containerB")], expected: "Running" },
  { name: "all succeeded, but the pod is terminal", regular: [succeeded("containerA"), succeeded("containerB")], terminal: true, expected: "Succeeded" },
  { name: "all stopped, one failed, but the pod is terminal", regular: [succeeded("containerA"), failed("containerB")], terminal: true, expected: "Failed" },
  { name: "all succeeded and terminal, but a static pod", regular: [succeeded("containerA"), succeeded("containerB")], terminal: true, static: true, expected: "Running" },
  { name: "mixed state #1", regular: [running("containerA"), stopped("containerB")], expected: "Running" },
  { name: "mixed state #2 (one unknown)", regular: [running("containerA")], expected: "Pending" },
  { name: "mixed state #3 (one waiting)", regular: [running("containerA"), waiting("containerB")], expected: "Pending" },
  { name: "backoff crashloop container", regular: [running("containerA"), waitingWithLastTermination("containerB")], expected: "Running" },
  // The failed one is restarted: neither Succeeded nor Failed.
  { name: "one succeeded, one failed (restarting)", regular: [succeeded("containerA"), failed("containerB")], expected: "Running" },
]);

table("getPhase, restartPolicy Always with an init container", { initContainers: [c("containerX")], containers: AB, restartPolicy: "Always" }, [
  { name: "empty, waiting", expected: "Pending" },
  { name: "init container running", init: [running("containerX")], expected: "Pending" },
  { name: "init container terminated non-zero", init: [failed("containerX")], expected: "Pending" },
  { name: "init container waiting, terminated zero", init: [waitingWithLastTermination("containerX")], expected: "Pending" },
  { name: "init container waiting, terminated non-zero", init: [waitingWithLastTermination("containerX", -1)], expected: "Pending" },
  { name: "init container waiting, not terminated", init: [waiting("containerX")], expected: "Pending" },
  { name: "init container succeeded", init: [succeeded("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
]);

table("getPhase, restartPolicy Always with a sidecar", { initContainers: [sidecar("containerX")], containers: AB, restartPolicy: "Always" }, [
  { name: "empty, waiting", expected: "Pending" },
  { name: "sidecar running", init: [running("containerX")], expected: "Pending" },
  { name: "sidecar stopped", init: [stopped("containerX")], expected: "Pending" },
  { name: "sidecar waiting, terminated zero", init: [waitingWithLastTermination("containerX")], expected: "Pending" },
  { name: "sidecar waiting, terminated non-zero", init: [waitingWithLastTermination("containerX", -1)], expected: "Pending" },
  { name: "sidecar waiting, not terminated", init: [waiting("containerX")], expected: "Pending" },
  { name: "sidecar started, 1/2 regular running", init: [started("containerX")], regular: [running("containerA")], expected: "Pending" },
  { name: "sidecar started, all regular running", init: [started("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "sidecar running, all regular running", init: [running("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "sidecar stopped, all regular running", init: [stopped("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
  {
    name: "backoff crashloop sidecar, all regular running",
    init: [waitingWithLastTermination("containerX")],
    regular: [running("containerA"), running("containerB")],
    expected: "Running",
  },
  {
    name: "regular succeeded, sidecar failed, terminal",
    init: [failed("containerX")],
    regular: [succeeded("containerA"), succeeded("containerB")],
    terminal: true,
    expected: "Succeeded",
  },
  {
    name: "regular succeeded, sidecar succeeded, terminal",
    init: [succeeded("containerX")],
    regular: [succeeded("containerA"), succeeded("containerB")],
    terminal: true,
    expected: "Succeeded",
  },
]);

table(
  "getPhase, restartPolicy Always, pod has run",
  { initContainers: [c("containerX"), sidecar("containerY")], containers: [c("containerA")], restartPolicy: "Always" },
  [
    { name: "regular init, sidecar and regular all running", init: [running("containerX"), running("containerY")], regular: [running("containerA")], expected: "Pending" },
    { name: "regular stopped, sidecar and regular init running", init: [running("containerX"), running("containerY")], regular: [stopped("containerA")], expected: "Pending" },
    { name: "regular init succeeded, sidecar running, regular stopped", init: [succeeded("containerX"), running("containerY")], regular: [stopped("containerA")], expected: "Running" },
    { name: "regular init succeeded, sidecar and regular running", init: [succeeded("containerX"), running("containerY")], regular: [running("containerA")], expected: "Running" },
    {
      name: "sidecar restarting (not started) in a pod whose regular container runs in the current sandbox",
      init: [succeeded("containerX"), running("containerY")],
      regular: [waitingWithLastTermination("containerA")],
      podHasInitialized: true,
      expected: "Running",
    },
    {
      name: "sidecar not started and no regular container in the current sandbox",
      init: [succeeded("containerX"), running("containerY")],
      regular: [stopped("containerA")],
      podHasInitialized: false,
      expected: "Pending",
    },
  ],
);

table("getPhase, restartPolicy Never", { containers: AB, restartPolicy: "Never" }, [
  { name: "waiting", expected: "Pending" },
  { name: "all running", regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "all succeeded", regular: [succeeded("containerA"), succeeded("containerB")], expected: "Succeeded" },
  { name: "all failed", regular: [failed("containerA"), failed("containerB")], expected: "Failed" },
  { name: "mixed state #1", regular: [running("containerA"), succeeded("containerB")], expected: "Running" },
  { name: "mixed state #2", regular: [running("containerA")], expected: "Pending" },
  { name: "mixed state #3", regular: [running("containerA"), waiting("containerB")], expected: "Pending" },
  // One failure among the exits fails the pod, whichever container it is (stopped != succeeded).
  { name: "one succeeded, one failed", regular: [succeeded("containerA"), failed("containerB")], expected: "Failed" },
  { name: "one failed, one succeeded", regular: [failed("containerA"), succeeded("containerB")], expected: "Failed" },
  { name: "one succeeded, one failed, the pod is terminal", regular: [succeeded("containerA"), failed("containerB")], terminal: true, expected: "Failed" },
]);

table("getPhase, restartPolicy Never with an init container", { initContainers: [c("containerX")], containers: AB, restartPolicy: "Never" }, [
  { name: "empty, waiting", expected: "Pending" },
  { name: "init container running", init: [running("containerX")], expected: "Pending" },
  { name: "init container terminated non-zero", init: [failed("containerX")], expected: "Failed" },
  { name: "init container waiting, terminated zero", init: [waitingWithLastTermination("containerX")], expected: "Pending" },
  { name: "init container waiting, terminated non-zero", init: [waitingWithLastTermination("containerX", -1)], expected: "Failed" },
  { name: "init container waiting, not terminated", init: [waiting("containerX")], expected: "Pending" },
  { name: "init container succeeded", init: [succeeded("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
]);

table("getPhase, restartPolicy Never with a sidecar", { initContainers: [sidecar("containerX")], containers: AB, restartPolicy: "Never" }, [
  { name: "empty, waiting", expected: "Pending" },
  { name: "sidecar running", init: [running("containerX")], expected: "Pending" },
  { name: "sidecar stopped", init: [stopped("containerX")], expected: "Pending" },
  { name: "sidecar waiting, terminated zero", init: [waitingWithLastTermination("containerX")], expected: "Pending" },
  { name: "sidecar waiting, terminated non-zero", init: [waitingWithLastTermination("containerX", -1)], expected: "Pending" },
  { name: "sidecar waiting, not terminated", init: [waiting("containerX")], expected: "Pending" },
  { name: "sidecar started, one main running", init: [started("containerX")], regular: [running("containerA")], expected: "Pending" },
  { name: "sidecar started, mains succeeded", init: [started("containerX")], regular: [succeeded("containerA"), succeeded("containerB")], expected: "Running" },
  { name: "sidecar running, mains succeeded", init: [running("containerX")], regular: [succeeded("containerA"), succeeded("containerB")], expected: "Running" },
  { name: "all succeeded", init: [succeeded("containerX")], regular: [succeeded("containerA"), succeeded("containerB")], expected: "Succeeded" },
  { name: "sidecar failed, mains succeeded", init: [failed("containerX")], regular: [succeeded("containerA"), succeeded("containerB")], expected: "Succeeded" },
  {
    name: "backoff crashloop sidecar, mains succeeded",
    init: [waitingWithLastTermination("containerX")],
    regular: [succeeded("containerA"), succeeded("containerB")],
    expected: "Succeeded",
  },
  {
    name: "backoff crashloop non-zero sidecar, mains succeeded",
    init: [waitingWithLastTermination("containerX", -1)],
    regular: [succeeded("containerA"), succeeded("containerB")],
    expected: "Succeeded",
  },
]);

table("getPhase, restartPolicy OnFailure", { containers: AB, restartPolicy: "OnFailure" }, [
  { name: "waiting", expected: "Pending" },
  { name: "all running", regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "all succeeded", regular: [succeeded("containerA"), succeeded("containerB")], expected: "Succeeded" },
  { name: "all failed (restarting)", regular: [failed("containerA"), failed("containerB")], expected: "Running" },
  { name: "all failed, but the pod is terminal", regular: [failed("containerA"), failed("containerB")], terminal: true, expected: "Failed" },
  { name: "mixed state #1", regular: [running("containerA"), succeeded("containerB")], expected: "Running" },
  { name: "mixed state #2", regular: [running("containerA")], expected: "Pending" },
  { name: "mixed state #3", regular: [running("containerA"), waiting("containerB")], expected: "Pending" },
  { name: "backoff crashloop container", regular: [running("containerA"), waitingWithLastTermination("containerB")], expected: "Running" },
  // The failed one is restarted: neither Succeeded nor Failed.
  { name: "one succeeded, one failed (restarting)", regular: [succeeded("containerA"), failed("containerB")], expected: "Running" },
]);

// Under OnFailure a failed init container is restarted: the pod stays Pending, it does not fail.
table("getPhase, restartPolicy OnFailure with an init container", { initContainers: [c("containerX")], containers: AB, restartPolicy: "OnFailure" }, [
  { name: "empty, waiting", expected: "Pending" },
  { name: "init container running", init: [running("containerX")], expected: "Pending" },
  { name: "init container terminated non-zero", init: [failed("containerX")], expected: "Pending" },
  { name: "init container waiting, terminated non-zero", init: [waitingWithLastTermination("containerX", -1)], expected: "Pending" },
  { name: "init container waiting, terminated zero", init: [waitingWithLastTermination("containerX")], expected: "Pending" },
  { name: "init container succeeded", init: [succeeded("containerX")], regular: [running("containerA"), running("containerB")], expected: "Running" },
  { name: "init container succeeded, all regular succeeded", init: [succeeded("containerX")], regular: [succeeded("containerA"), succeeded("containerB")], expected: "Succeeded" },
]);

table("getPhase, default restartPolicy is Always", { containers: AB }, [
  { name: "all stopped", regular: [stopped("containerA"), failed("containerB")], expected: "Running" },
]);
