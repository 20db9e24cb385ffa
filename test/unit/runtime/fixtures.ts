// Pods and runtime statuses for the computePodActions tables (upstream's makeBasePodAndStatus*).
import type { Container, Pod } from "../../../src/api/index.ts";
import type { PodActions, ProbeResult, ProbeResultsView } from "../../../src/runtime/actions-types.ts";
import {
  hashContainer,
  type RuntimePodStatus,
  type RuntimeContainerStatus,
  type RuntimeSandboxStatus,
} from "../../../src/container/index.ts";
import { makePod } from "../../fixtures/pods.ts";

export function containerStatus(id: string, container: Container, over: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return {
    id,
    name: container.name,
    state: "running",
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    reason: "",
    message: "",
    image: container.image ?? "",
    imageRef: "",
    hash: hashContainer(container),
    restartCount: 0,
    containerType: "",
    sandboxId: "sandboxID",
    logPath: "",
    annotations: {},
    labels: {},
    ...over,
  };
}

export function sandboxStatus(over: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus {
  return {
    id: "sandboxID",
    state: "ready",
    createdAt: 0,
    attempt: 0,
    ips: ["10.0.0.1"],
    hostNetwork: false,
    name: "foo",
    namespace: "foo-ns",
    uid: "12345678",
    labels: {},
    annotations: {},
    ...over,
  };
}

/** Three running containers in a ready sandbox with an IP: nothing to do. */
export function makeBasePodAndStatus(): { pod: Pod; status: RuntimePodStatus } {
  const pod = makePod({
    name: "foo",
    namespace: "foo-ns",
    metadata: { uid: "12345678" },
    spec: {
      containers: [
        { name: "foo1", image: "busybox" },
        { name: "foo2", image: "busybox" },
        { name: "foo3", image: "busybox" },
      ],
    },
  });
  const status: RuntimePodStatus = {
    uid: "12345678",
    name: "foo",
    namespace: "foo-ns",
    ips: ["10.0.0.1"],
    sandboxStatuses: [sandboxStatus()],
    containerStatuses: pod.spec.containers.map((c, i) => containerStatus(`id${i + 1}`, c)),
  };
  return { pod, status };
}

/** Three completed init containers; no regular container has a status yet. */
export function makeBasePodAndStatusWithInitContainers(): { pod: Pod; status: RuntimePodStatus } {
  const { pod, status } = makeBasePodAndStatus();
  pod.spec.initContainers = [
    { name: "init1", image: "bar-image" },
    { name: "init2", image: "bar-image" },
    { name: "init3", image: "bar-image" },
  ];
  status.containerStatuses = pod.spec.initContainers.map((c, i) =>
    containerStatus(`initid${i + 1}`, c, { state: "exited" }),
  );
  return { pod, status };
}

/** Three running sidecars (the 2nd and 3rd with liveness and startup probes). */
export function makeBasePodAndStatusWithRestartableInitContainers(): { pod: Pod; status: RuntimePodStatus } {
  const { pod, status } = makeBasePodAndStatus();
  pod.spec.initContainers = [
    { name: "restartable-init-1", image: "bar-image", restartPolicy: "Always" },
    { name: "restartable-init-2", image: "bar-image", restartPolicy: "Always", livenessProbe: {}, startupProbe: {} },
    { name: "restartable-init-3", image: "bar-image", restartPolicy: "Always", livenessProbe: {}, startupProbe: {} },
  ];
  status.containerStatuses = pod.spec.initContainers.map((c, i) => containerStatus(`initid${i + 1}`, c));
  return { pod, status };
}

/** Init + regular containers + one running ephemeral container. */
export function makeBasePodAndStatusWithInitAndEphemeralContainers(): { pod: Pod; status: RuntimePodStatus } {
  const { pod, status } = makeBasePodAndStatus();
  pod.spec.initContainers = [{ name: "init1", image: "bar-image" }];
  pod.spec.ephemeralContainers = [{ name: "debug", image: "busybox" }];
  status.containerStatuses.push(
    containerStatus("initid1", pod.spec.initContainers[0], { state: "exited" }),
    containerStatus("debug1", pod.spec.ephemeralContainers[0]),
  );
  return { pod, status };
}

/** The plan with nothing to do for the base status. */
export function noAction(status: RuntimePodStatus): PodActions {
  return {
    killPod: false,
    createSandbox: false,
    sandboxId: status.sandboxStatuses[0].id,
    attempt: 0,
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: [],
  };
}

/** Probe results keyed by container id; missing = the probe has not run. */
export class FakeProbeResults implements ProbeResultsView {
  readonly livenessResults = new Map<string, ProbeResult>();
  readonly startupResults = new Map<string, ProbeResult>();
  liveness(id: string): ProbeResult | undefined {
    return this.livenessResults.get(id);
  }
  startup(id: string): ProbeResult | undefined {
    return this.startupResults.get(id);
  }
}
