import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import type { PodActions } from "../../../src/runtime/actions-types.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import {
  containerStatus,
  FakeProbeResults,
  makeBasePodAndStatusWithInitAndEphemeralContainers,
  makeBasePodAndStatusWithInitContainers,
  noAction,
} from "./fixtures.ts";

interface Case {
  name: string;
  mutatePod?: (pod: Pod) => void;
  mutateStatus?: (status: RuntimePodStatus, pod: Pod) => void;
  actions: (base: RuntimePodStatus) => PodActions;
  kill?: string[];
}

const plan = (base: RuntimePodStatus, over: Partial<PodActions>): PodActions => ({ ...noAction(base), ...over });

function run(cases: Case[], make: () => { pod: Pod; status: RuntimePodStatus }) {
  for (const c of cases) {
    test(c.name, () => {
      const { pod, status } = make();
      const base = make().status;
      c.mutatePod?.(pod);
      c.mutateStatus?.(status, pod);
      const { containersToKill, ...rest } = computePodActions(pod, status, new FakeProbeResults());
      const { containersToKill: _ignored, ...expected } = c.actions(base);
      expect(rest).toEqual(expected);
      expect(containersToKill.map((k) => k.id)).toEqual(c.kill ?? []);
    });
  }
}

describe("computePodActions with init containers", () => {
  run(
    [
      { name: "initialization completed; start all containers", actions: (b) => plan(b, { containersToStart: [0, 1, 2] }) },
      {
        name: "no init containers have been started; start the first one",
        mutateStatus: (s) => (s.containerStatuses = []),
        actions: (b) => plan(b, { initContainersToStart: [0] }),
      },
      {
        name: "init containers run one at a time: the second starts after the first succeeded",
        mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(0, 1)),
        actions: (b) => plan(b, { initContainersToStart: [1] }),
      },
      {
        name: "initialization in progress; do nothing",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.containerStatuses[2].state = "running"),
        actions: (b) => noAction(b),
      },
      {
        name: "kill pod and restart the first init container if the pod sandbox is dead",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.sandboxStatuses[0].state = "notready"),
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
      },
      {
        name: "initialization failed; restart the last init container if RestartPolicy == Always",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.containerStatuses[2].exitCode = 137),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
      },
      {
        name: "initialization failed; restart the last init container if RestartPolicy == OnFailure",
        mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
        mutateStatus: (s) => (s.containerStatuses[2].exitCode = 137),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
      },
      {
        name: "initialization failed; kill pod if RestartPolicy == Never",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => (s.containerStatuses[2].exitCode = 137),
        actions: (b) => plan(b, { killPod: true }),
      },
      {
        name: "init container state unknown; kill and recreate the last init container if RestartPolicy == Always",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.containerStatuses[2].state = "unknown"),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
        kill: ["initid3"],
      },
      {
        name: "init container state unknown; kill and recreate the last init container if RestartPolicy == OnFailure",
        mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
        mutateStatus: (s) => (s.containerStatuses[2].state = "unknown"),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
        kill: ["initid3"],
      },
      {
        name: "init container state unknown; kill pod if RestartPolicy == Never",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => (s.containerStatuses[2].state = "unknown"),
        actions: (b) => plan(b, { killPod: true }),
      },
      {
        name: "pod sandbox not ready, init container failed, but RestartPolicy == Never; kill pod only",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => (s.sandboxStatuses[0].state = "notready"),
        actions: (b) => plan(b, { killPod: true, attempt: 1 }),
      },
      {
        name: "pod sandbox not ready, and RestartPolicy == Never, but no visible init containers; create a new pod sandbox",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => {
          s.sandboxStatuses[0].state = "notready";
          s.containerStatuses = [];
        },
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
      },
      {
        name: "pod sandbox not ready, init container failed, and RestartPolicy == OnFailure; create a new pod sandbox",
        mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
        mutateStatus: (s) => {
          s.sandboxStatuses[0].state = "notready";
          s.containerStatuses[2].exitCode = 137;
        },
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
      },
      {
        name: "some of the init container statuses are missing but the last init container is running, don't restart preceding ones",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => {
          s.containerStatuses[2].state = "running";
          s.containerStatuses = s.containerStatuses.slice(2);
        },
        actions: (b) => noAction(b),
      },
      {
        name: "an init container is in the created state due to an unknown error when starting container; restart it",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.containerStatuses[2].state = "created"),
        actions: (b) => plan(b, { initContainersToStart: [2] }),
      },
      {
        name: "init containers are not re-run once a regular container runs, even if their statuses are gone",
        mutateStatus: (s, p) => (s.containerStatuses = [containerStatus("id1", p.spec.containers[0])]),
        actions: (b) => plan(b, { containersToStart: [1, 2] }),
      },
    ],
    makeBasePodAndStatusWithInitContainers,
  );
});

describe("computePodActions with init and ephemeral containers", () => {
  run(
    [
      { name: "steady state; do nothing; ignore ephemeral container", actions: (b) => noAction(b) },
      {
        name: "no ephemeral containers running; start one",
        mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(0, 4)),
        actions: (b) => plan(b, { ephemeralContainersToStart: [0] }),
      },
      {
        name: "start second ephemeral container",
        mutatePod: (p) => p.spec.ephemeralContainers!.push({ name: "debug2", image: "busybox" }),
        actions: (b) => plan(b, { ephemeralContainersToStart: [1] }),
      },
      {
        name: "ephemeral container exited; do not restart",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.containerStatuses[4].state = "exited"),
        actions: (b) => noAction(b),
      },
      {
        name: "initialization in progress; start ephemeral container",
        mutateStatus: (s) => {
          s.containerStatuses[3].state = "running";
          s.containerStatuses = s.containerStatuses.slice(3, 4);
        },
        actions: (b) => plan(b, { ephemeralContainersToStart: [0] }),
      },
      {
        name: "create a new pod sandbox if the pod sandbox is dead, init container failed and RestartPolicy == OnFailure",
        mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
        mutateStatus: (s) => {
          s.sandboxStatuses[0].state = "notready";
          s.containerStatuses = s.containerStatuses.slice(3);
          s.containerStatuses[0].exitCode = 137;
        },
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
      },
      {
        name: "kill pod and do not restart ephemeral container if the pod sandbox is dead",
        mutatePod: (p) => (p.spec.restartPolicy = "Always"),
        mutateStatus: (s) => (s.sandboxStatuses[0].state = "notready"),
        actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
      },
      {
        name: "kill pod if all containers exited except ephemeral container",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => {
          for (let i = 0; i < 3; i++) Object.assign(s.containerStatuses[i], { state: "exited", exitCode: 0 });
        },
        actions: (b) => plan(b, { killPod: true }),
      },
      {
        name: "ephemeral container is in unknown state; leave it alone",
        mutatePod: (p) => (p.spec.restartPolicy = "Never"),
        mutateStatus: (s) => (s.containerStatuses[4].state = "unknown"),
        actions: (b) => noAction(b),
      },
    ],
    makeBasePodAndStatusWithInitAndEphemeralContainers,
  );
});
