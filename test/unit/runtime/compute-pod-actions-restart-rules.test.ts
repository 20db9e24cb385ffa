// Ported from kuberuntime_manager_test.go TestComputePodActionsWithContainerRestartRules
// (ContainerRestartRules on, as in 1.37), with rows for restartPolicyRules on exit codes, a
// failed liveness probe under a container's own policy, and init containers with their own policy.
import { describe, expect, test } from "bun:test";
import type { ContainerRestartRule, Pod } from "../../../src/api/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import type { PodActions } from "../../../src/runtime/actions-types.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { FakeProbeResults, makeBasePodAndStatus, makeBasePodAndStatusWithInitContainers, noAction } from "./fixtures.ts";

interface Case {
  name: string;
  mutatePod?: (pod: Pod) => void;
  mutateStatus?: (status: RuntimePodStatus) => void;
  probes?: (probes: FakeProbeResults) => void;
  actions: (base: RuntimePodStatus) => PodActions;
  kill?: string[];
}

const plan = (base: RuntimePodStatus, over: Partial<PodActions>): PodActions => ({ ...noAction(base), ...over });
const exit = (s: RuntimePodStatus, i: number, exitCode: number) => {
  s.containerStatuses[i]!.state = "exited";
  s.containerStatuses[i]!.exitCode = exitCode;
};
const restartOn = (operator: "In" | "NotIn", ...values: number[]): ContainerRestartRule[] => [{ action: "Restart", exitCodes: { operator, values } }];

function run(cases: Case[], make: () => { pod: Pod; status: RuntimePodStatus }) {
  for (const c of cases) {
    test(c.name, () => {
      const { pod, status } = make();
      const base = make().status;
      c.mutatePod?.(pod);
      c.mutateStatus?.(status);
      const probes = new FakeProbeResults();
      c.probes?.(probes);
      const { containersToKill, ...rest } = computePodActions(pod, status, probes);
      const { containersToKill: _ignored, ...expected } = c.actions(base);
      expect(rest).toEqual(expected);
      expect(containersToKill.map((k) => k.id)).toEqual(c.kill ?? []);
    });
  }
}

describe("computePodActions with container restart policies and rules", () => {
  run(
    [
      {
        name: "restart exited containers if their RestartPolicy == Always (pod Never)",
        mutatePod: (p) => {
          p.spec.containers[0]!.restartPolicy = "Always";
          p.spec.containers[1]!.restartPolicy = "Always";
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (exit(s, 0, 0), exit(s, 1, 111)),
        actions: (b) => plan(b, { containersToStart: [0, 1] }),
      },
      {
        name: "restart failed containers if their RestartPolicy == OnFailure (pod Never)",
        mutatePod: (p) => {
          p.spec.containers[0]!.restartPolicy = "OnFailure";
          p.spec.containers[1]!.restartPolicy = "OnFailure";
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (exit(s, 0, 0), exit(s, 1, 111)),
        actions: (b) => plan(b, { containersToStart: [1] }),
      },
      {
        name: "restart created but not started containers if their RestartPolicy == OnFailure",
        mutatePod: (p) => {
          p.spec.containers[0]!.restartPolicy = "OnFailure";
          p.spec.containers[1]!.restartPolicy = "OnFailure";
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (exit(s, 0, 0), (s.containerStatuses[1]!.state = "created")),
        actions: (b) => plan(b, { containersToStart: [1] }),
      },
      {
        name: "don't restart containers if their RestartPolicy == Never (pod Always)",
        mutatePod: (p) => {
          p.spec.containers[0]!.restartPolicy = "Never";
          p.spec.containers[1]!.restartPolicy = "Never";
          p.spec.restartPolicy = "Always";
        },
        mutateStatus: (s) => (exit(s, 0, 0), exit(s, 1, 111)),
        actions: (b) => noAction(b),
      },
      {
        name: "kill pod and recreate all containers (except the succeeded OnFailure one) if the pod sandbox is dead",
        mutatePod: (p) => {
          p.spec.containers[1]!.restartPolicy = "OnFailure";
          p.spec.restartPolicy = "Always";
        },
        mutateStatus: (s) => {
          s.sandboxStatuses[0]!.state = "notready";
          exit(s, 1, 0);
        },
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 2] }),
      },
      {
        name: "pod Never: a Restart rule In [42] restarts the container that exited 42, and the pod keeps its sandbox",
        mutatePod: (p) => {
          p.spec.containers = [{ ...p.spec.containers[0]!, restartPolicy: "Never", restartPolicyRules: restartOn("In", 42) }];
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => {
          s.containerStatuses = s.containerStatuses.slice(0, 1);
          exit(s, 0, 42);
        },
        actions: (b) => plan(b, { containersToStart: [0] }),
      },
      {
        name: "pod Never: the same rule does not match exit 1, and the pod is killed",
        mutatePod: (p) => {
          p.spec.containers = [{ ...p.spec.containers[0]!, restartPolicy: "Never", restartPolicyRules: restartOn("In", 42) }];
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => {
          s.containerStatuses = s.containerStatuses.slice(0, 1);
          exit(s, 0, 1);
        },
        actions: (b) => plan(b, { killPod: true }),
      },
      {
        name: "pod Never: a Restart rule NotIn [0] restarts a failure, not a success",
        mutatePod: (p) => {
          for (const c of p.spec.containers.slice(0, 2)) Object.assign(c, { restartPolicy: "Never", restartPolicyRules: restartOn("NotIn", 0) });
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (exit(s, 0, 0), exit(s, 1, 7)),
        actions: (b) => plan(b, { containersToStart: [1] }),
      },
      {
        name: "a failed liveness probe restarts a container whose own policy is OnFailure although the pod is Never",
        mutatePod: (p) => {
          p.spec.containers[0]!.restartPolicy = "OnFailure";
          p.spec.restartPolicy = "Never";
        },
        probes: (r) => r.livenessResults.set("id1", "Failure"),
        actions: (b) => plan(b, { containersToStart: [0] }),
        kill: ["id1"],
      },
      {
        name: "a failed liveness probe does not restart a container whose own policy is Never although the pod is Always",
        mutatePod: (p) => (p.spec.containers[0]!.restartPolicy = "Never"),
        probes: (r) => r.livenessResults.set("id1", "Failure"),
        actions: (b) => plan(b, {}),
        kill: ["id1"],
      },
    ],
    makeBasePodAndStatus,
  );
});

describe("computePodActions with init containers that have their own restart policy", () => {
  run(
    [
      {
        name: "pod Never: an init container with its own OnFailure that failed is restarted",
        mutatePod: (p) => {
          p.spec.initContainers![2]!.restartPolicy = "OnFailure";
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (s.containerStatuses[2]!.exitCode = 1),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
      },
      {
        name: "pod Always: an init container with its own Never that failed fails the pod",
        mutatePod: (p) => (p.spec.initContainers![2]!.restartPolicy = "Never"),
        mutateStatus: (s) => (s.containerStatuses[2]!.exitCode = 1),
        actions: (b) => plan(b, { killPod: true }),
      },
      {
        name: "pod Never: an init container with a matching Restart rule is restarted",
        mutatePod: (p) => {
          Object.assign(p.spec.initContainers![2]!, { restartPolicy: "Never", restartPolicyRules: restartOn("In", 3) });
          p.spec.restartPolicy = "Never";
        },
        mutateStatus: (s) => (s.containerStatuses[2]!.exitCode = 3),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
      },
    ],
    makeBasePodAndStatusWithInitContainers,
  );
});
