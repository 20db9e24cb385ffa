import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import type { PodActions } from "../../../src/runtime/actions-types.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { containerStatus, FakeProbeResults, makeBasePodAndStatusWithRestartableInitContainers, noAction } from "./fixtures.ts";

interface Case {
  name: string;
  mutatePod?: (pod: Pod) => void;
  mutateStatus?: (status: RuntimePodStatus, pod: Pod, probes: FakeProbeResults) => void;
  actions: (base: RuntimePodStatus) => PodActions;
  kill?: string[];
}

const plan = (base: RuntimePodStatus, over: Partial<PodActions>): PodActions => ({ ...noAction(base), ...over });
const always = (p: Pod) => (p.spec.restartPolicy = "Always");
const never = (p: Pod) => (p.spec.restartPolicy = "Never");
const allRegular = (s: RuntimePodStatus, p: Pod, over: { state: "running" | "exited"; exitCode?: number }) =>
  p.spec.containers.forEach((c, i) => s.containerStatuses.push(containerStatus(`id${i + 1}`, c, over)));

const cases: Case[] = [
  { name: "initialization completed; start all containers", actions: (b) => plan(b, { containersToStart: [0, 1, 2] }) },
  {
    name: "no init containers have been started; start the first one",
    mutateStatus: (s) => (s.containerStatuses = []),
    actions: (b) => plan(b, { initContainersToStart: [0] }),
  },
  {
    name: "an init container is stuck in the created state; restart it",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses[2].state = "created"),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "restartable init container has started; start the next",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(0, 1)),
    actions: (b) => plan(b, { initContainersToStart: [1] }),
  },
  {
    name: "livenessProbe has not been run; start the next anyway",
    mutatePod: always,
    mutateStatus: (s, _p, probes) => {
      probes.livenessResults.delete("initid2");
      s.containerStatuses = s.containerStatuses.slice(0, 2);
    },
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "livenessProbe in progress; start the next",
    mutatePod: always,
    mutateStatus: (s, _p, probes) => {
      probes.livenessResults.set("initid2", "Unknown");
      s.containerStatuses = s.containerStatuses.slice(0, 2);
    },
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "livenessProbe has completed; start the next",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(0, 2)),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "kill and recreate the restartable init container if the liveness check has failed",
    mutatePod: always,
    mutateStatus: (_s, _p, probes) => probes.livenessResults.set("initid3", "Failure"),
    actions: (b) => plan(b, { initContainersToStart: [2], containersToStart: [0, 1, 2] }),
    kill: ["initid3"],
  },
  {
    name: "startupProbe has not been run; do nothing",
    mutatePod: always,
    mutateStatus: (s, _p, probes) => {
      probes.startupResults.delete("initid2");
      s.containerStatuses = s.containerStatuses.slice(0, 2);
    },
    actions: (b) => noAction(b),
  },
  {
    name: "startupProbe in progress; do nothing",
    mutatePod: always,
    mutateStatus: (s, _p, probes) => {
      probes.startupResults.set("initid2", "Unknown");
      s.containerStatuses = s.containerStatuses.slice(0, 2);
    },
    actions: (b) => noAction(b),
  },
  {
    name: "startupProbe has completed; start the next",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(0, 2)),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "kill and recreate the restartable init container if the startup check has failed",
    mutatePod: always,
    mutateStatus: (_s, _p, probes) => probes.startupResults.set("initid3", "Failure"),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
    kill: ["initid3"],
  },
  {
    name: "kill and recreate the restartable init container if the container definition changes",
    mutatePod: (p) => {
      always(p);
      p.spec.initContainers![2].image = "foo-image";
    },
    actions: (b) => plan(b, { initContainersToStart: [2], containersToStart: [0, 1, 2] }),
    kill: ["initid3"],
  },
  {
    name: "restart terminated restartable init container and next init container",
    mutatePod: always,
    mutateStatus: (s) => {
      s.containerStatuses[0].state = "exited";
      s.containerStatuses[2].state = "exited";
    },
    actions: (b) => plan(b, { initContainersToStart: [0, 2] }),
  },
  {
    name: "restart terminated restartable init container and regular containers",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses[0].state = "exited"),
    actions: (b) => plan(b, { initContainersToStart: [0], containersToStart: [0, 1, 2] }),
  },
  {
    name: "pod sandbox not ready, restartable init container failed, but RestartPolicy == Never; kill pod only",
    mutatePod: never,
    mutateStatus: (s) => {
      s.sandboxStatuses[0].state = "notready";
      Object.assign(s.containerStatuses[2], { state: "exited", exitCode: 137 });
    },
    actions: (b) => plan(b, { killPod: true, attempt: 1 }),
  },
  {
    name: "pod sandbox not ready, and RestartPolicy == Never, but no visible restartable init containers; create a new pod sandbox",
    mutatePod: never,
    mutateStatus: (s) => {
      s.sandboxStatuses[0].state = "notready";
      s.containerStatuses = [];
    },
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
  },
  ...(["OnFailure", "Always"] as const).map(
    (policy): Case => ({
      name: `pod sandbox not ready, restartable init container failed, and RestartPolicy == ${policy}; create a new pod sandbox`,
      mutatePod: (p) => (p.spec.restartPolicy = policy),
      mutateStatus: (s) => {
        s.sandboxStatuses[0].state = "notready";
        Object.assign(s.containerStatuses[2], { state: "exited", exitCode: 137 });
      },
      actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, initContainersToStart: [0] }),
    }),
  ),
  {
    name: "initialization failed; restart the last restartable init container even if pod's RestartPolicy == Never",
    mutatePod: never,
    mutateStatus: (s) => Object.assign(s.containerStatuses[2], { state: "exited", exitCode: 137 }),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "restartable init container state unknown; kill and recreate the last restartable init container even if pod's RestartPolicy == Never",
    mutatePod: never,
    mutateStatus: (s) => (s.containerStatuses[2].state = "unknown"),
    actions: (b) => plan(b, { initContainersToStart: [2] }),
    kill: ["initid3"],
  },
  {
    name: "restart restartable init container if regular containers are running even if pod's RestartPolicy == Never",
    mutatePod: never,
    mutateStatus: (s, p) => {
      Object.assign(s.containerStatuses[2], { state: "exited", exitCode: 137 });
      allRegular(s, p, { state: "running" });
    },
    actions: (b) => plan(b, { initContainersToStart: [2] }),
  },
  {
    name: "kill the pod if all main containers succeeded if pod's RestartPolicy == Never; sidecars do not keep it alive",
    mutatePod: never,
    mutateStatus: (s, p) => allRegular(s, p, { state: "exited", exitCode: 0 }),
    actions: (b) => plan(b, { killPod: true }),
  },
  {
    name: "some of the init container statuses are missing but the last init container is running, restart restartable init and regular containers",
    mutatePod: always,
    mutateStatus: (s) => (s.containerStatuses = s.containerStatuses.slice(2)),
    actions: (b) => plan(b, { initContainersToStart: [0, 1], containersToStart: [0, 1, 2] }),
  },
];

describe("computePodActions with restartable init containers (sidecars)", () => {
  for (const c of cases) {
    test(c.name, () => {
      const { pod, status } = makeBasePodAndStatusWithRestartableInitContainers();
      const base = makeBasePodAndStatusWithRestartableInitContainers().status;
      const probes = new FakeProbeResults();
      for (const id of ["initid2", "initid3"]) {
        probes.livenessResults.set(id, "Success");
        probes.startupResults.set(id, "Success");
      }
      c.mutatePod?.(pod);
      c.mutateStatus?.(status, pod, probes);
      const { containersToKill, ...rest } = computePodActions(pod, status, probes);
      const { containersToKill: _ignored, ...expected } = c.actions(base);
      expect(rest).toEqual(expected);
      expect(containersToKill.map((k) => k.id)).toEqual(c.kill ?? []);
    });
  }
});
