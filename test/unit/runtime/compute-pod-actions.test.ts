import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { computePodActions } from "../../../src/runtime/actions.ts";
import type { PodActions } from "../../../src/runtime/actions-types.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { FakeProbeResults, makeBasePodAndStatus, noAction } from "./fixtures.ts";

interface Case {
  name: string;
  mutatePod?: (pod: Pod) => void;
  mutateStatus?: (status: RuntimePodStatus, probes: FakeProbeResults) => void;
  actions: (base: RuntimePodStatus) => PodActions;
  /** Ids of the containers to kill (messages are checked in their own test). */
  kill?: string[];
}

const plan = (base: RuntimePodStatus, over: Partial<PodActions>): PodActions => ({ ...noAction(base), ...over });
const kills = (...ids: string[]) => ids;

const cases: Case[] = [
  { name: "everything is good; do nothing", actions: (b) => noAction(b) },
  {
    name: "start pod sandbox and all containers for a new pod",
    mutateStatus: (s) => {
      s.sandboxStatuses = [];
      s.containerStatuses = [];
    },
    actions: (b) => plan(b, { killPod: true, createSandbox: true, sandboxId: "", attempt: 0, containersToStart: [0, 1, 2] }),
  },
  {
    name: "restart exited containers if RestartPolicy == Always",
    mutatePod: (p) => (p.spec.restartPolicy = "Always"),
    mutateStatus: (s) => {
      Object.assign(s.containerStatuses[0], { state: "exited", exitCode: 0 });
      Object.assign(s.containerStatuses[1], { state: "exited", exitCode: 111 });
    },
    actions: (b) => plan(b, { containersToStart: [0, 1] }),
  },
  {
    name: "restart failed containers if RestartPolicy == OnFailure",
    mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
    mutateStatus: (s) => {
      Object.assign(s.containerStatuses[0], { state: "exited", exitCode: 0 });
      Object.assign(s.containerStatuses[1], { state: "exited", exitCode: 111 });
    },
    actions: (b) => plan(b, { containersToStart: [1] }),
  },
  {
    name: "restart created but not started containers if RestartPolicy == OnFailure",
    mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
    mutateStatus: (s) => {
      Object.assign(s.containerStatuses[0], { state: "exited", exitCode: 0 });
      s.containerStatuses[1].state = "created";
    },
    actions: (b) => plan(b, { containersToStart: [1] }),
  },
  {
    name: "don't restart containers if RestartPolicy == Never",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => {
      Object.assign(s.containerStatuses[0], { state: "exited", exitCode: 0 });
      Object.assign(s.containerStatuses[1], { state: "exited", exitCode: 111 });
    },
    actions: (b) => noAction(b),
  },
  {
    name: "a missing restartPolicy means Always",
    mutateStatus: (s) => Object.assign(s.containerStatuses[0], { state: "exited", exitCode: 0 }),
    actions: (b) => plan(b, { containersToStart: [0] }),
  },
  {
    name: "kill pod and recreate everything if the pod sandbox is dead, and RestartPolicy == Always",
    mutatePod: (p) => (p.spec.restartPolicy = "Always"),
    mutateStatus: (s) => (s.sandboxStatuses[0].state = "notready"),
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 1, 2] }),
  },
  {
    name: "kill pod and recreate all containers (except for the succeeded one) if the pod sandbox is dead, and RestartPolicy == OnFailure",
    mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
    mutateStatus: (s) => {
      s.sandboxStatuses[0].state = "notready";
      Object.assign(s.containerStatuses[1], { state: "exited", exitCode: 0 });
    },
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 2] }),
  },
  {
    name: "kill pod and recreate all containers if the PodSandbox does not have an IP",
    mutateStatus: (s) => (s.sandboxStatuses[0].ips = []),
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 1, 2] }),
  },
  {
    name: "a host-network pod needs no sandbox IP",
    mutatePod: (p) => (p.spec.hostNetwork = true),
    mutateStatus: (s) => Object.assign(s.sandboxStatuses[0], { ips: [], hostNetwork: true }),
    actions: (b) => noAction(b),
  },
  {
    name: "recreate the sandbox without its id when hostNetwork was toggled",
    mutatePod: (p) => (p.spec.hostNetwork = true),
    actions: (b) => plan(b, { killPod: true, createSandbox: true, sandboxId: "", attempt: 1, containersToStart: [0, 1, 2] }),
  },
  {
    name: "recreate the sandbox when more than one sandbox is ready",
    mutateStatus: (s) => s.sandboxStatuses.push({ ...s.sandboxStatuses[0], id: "older", attempt: 0 }),
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 1, containersToStart: [0, 1, 2] }),
  },
  {
    name: "kill and recreate the container if the container's spec changed",
    mutatePod: (p) => (p.spec.restartPolicy = "Always"),
    mutateStatus: (s) => (s.containerStatuses[1].hash = (432423432).toString(16)),
    actions: (b) => plan(b, { containersToStart: [1] }),
    kill: kills("id2"),
  },
  {
    name: "kill and restart a changed container even if RestartPolicy == Never",
    mutatePod: (p) => {
      p.spec.restartPolicy = "Never";
      p.spec.containers[1].image = "busybox:1.37";
    },
    actions: (b) => plan(b, { containersToStart: [1] }),
    kill: kills("id2"),
  },
  {
    name: "kill and recreate the container if the liveness check has failed",
    mutatePod: (p) => (p.spec.restartPolicy = "Always"),
    mutateStatus: (_s, probes) => probes.livenessResults.set("id2", "Failure"),
    actions: (b) => plan(b, { containersToStart: [1] }),
    kill: kills("id2"),
  },
  {
    name: "kill and recreate the container if the startup check has failed",
    mutatePod: (p) => (p.spec.restartPolicy = "Always"),
    mutateStatus: (_s, probes) => probes.startupResults.set("id2", "Failure"),
    actions: (b) => plan(b, { containersToStart: [1] }),
    kill: kills("id2"),
  },
  {
    name: "kill but do not restart a container that failed liveness if RestartPolicy == Never",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (_s, probes) => probes.livenessResults.set("id2", "Failure"),
    actions: (b) => noAction(b),
    kill: kills("id2"),
  },
  {
    name: "verify we do not create a pod sandbox if no ready sandbox for pod with RestartPolicy=Never and all containers exited",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => {
      Object.assign(s.sandboxStatuses[0], { state: "notready", attempt: 1 });
      for (const c of s.containerStatuses) Object.assign(c, { state: "exited", exitCode: 0 });
    },
    actions: (b) => plan(b, { killPod: true, attempt: 2 }),
  },
  {
    name: "verify we do not create a pod sandbox if no ready sandbox for pod with RestartPolicy=OnFailure and all containers succeeded",
    mutatePod: (p) => (p.spec.restartPolicy = "OnFailure"),
    mutateStatus: (s) => {
      Object.assign(s.sandboxStatuses[0], { state: "notready", attempt: 1 });
      for (const c of s.containerStatuses) Object.assign(c, { state: "exited", exitCode: 0 });
    },
    actions: (b) => plan(b, { killPod: true, attempt: 2 }),
  },
  {
    name: "verify we create a pod sandbox if no ready sandbox for pod with RestartPolicy=Never and no containers have ever been created",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => {
      Object.assign(s.sandboxStatuses[0], { state: "notready", attempt: 2 });
      s.containerStatuses = [];
    },
    actions: (b) => plan(b, { killPod: true, createSandbox: true, attempt: 3, containersToStart: [0, 1, 2] }),
  },
  {
    name: "kill and recreate the container if the container is in unknown state",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => (s.containerStatuses[1].state = "unknown"),
    actions: (b) => plan(b, { containersToStart: [1] }),
    kill: kills("id2"),
  },
  {
    name: "restart the container if the container is in created state",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => (s.containerStatuses[1].state = "created"),
    actions: (b) => plan(b, { containersToStart: [1] }),
  },
  {
    name: "kill the pod when every container exited under Never",
    mutatePod: (p) => (p.spec.restartPolicy = "Never"),
    mutateStatus: (s) => {
      for (const c of s.containerStatuses) Object.assign(c, { state: "exited", exitCode: 1 });
    },
    actions: (b) => plan(b, { killPod: true }),
  },
  {
    name: "do not restart anything of a pod being deleted; kill it when nothing runs",
    mutatePod: (p) => (p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z"),
    mutateStatus: (s) => {
      for (const c of s.containerStatuses) Object.assign(c, { state: "exited", exitCode: 1 });
    },
    actions: (b) => plan(b, { killPod: true }),
  },
];

describe("computePodActions", () => {
  for (const c of cases) {
    test(c.name, () => {
      const { pod, status } = makeBasePodAndStatus();
      const base = makeBasePodAndStatus().status;
      const probes = new FakeProbeResults();
      c.mutatePod?.(pod);
      c.mutateStatus?.(status, probes);
      const actual = computePodActions(pod, status, probes);
      const { containersToKill, ...rest } = actual;
      const { containersToKill: _ignored, ...expected } = c.actions(base);
      expect(rest).toEqual(expected);
      expect(containersToKill.map((k) => k.id)).toEqual(c.kill ?? []);
    });
  }

  test("kill messages say why and whether the container comes back", () => {
    const { pod, status } = makeBasePodAndStatus();
    pod.spec.containers[0].image = "busybox:2";
    status.containerStatuses[2].state = "unknown";
    const probes = new FakeProbeResults();
    probes.livenessResults.set("id2", "Failure");
    const { containersToKill } = computePodActions(pod, status, probes);
    expect(containersToKill).toEqual([
      { id: "id1", name: "foo1", message: "Container foo1 definition changed, will be restarted", reason: "" },
      { id: "id2", name: "foo2", message: "Container foo2 failed liveness probe, will be restarted", reason: "LivenessProbe" },
      { id: "id3", name: "foo3", message: 'Container is in "unknown" state, try killing it before restart', reason: "Unknown" },
    ]);
  });

  test("without a prober every probe counts as passed", () => {
    const { pod, status } = makeBasePodAndStatus();
    pod.spec.containers[1].livenessProbe = { periodSeconds: 1 };
    expect(computePodActions(pod, status)).toEqual(noAction(status));
  });
});
