// The shared policy helpers: one rule each, used by the runtime's plan, the status generator and
// the prober alike.
import { describe, expect, test } from "bun:test";
import type { Container, Pod, RestartPolicy } from "../../../src/api/index.ts";
import {
  emptyPodStatus,
  resolveContainerPort,
  shouldContainerBeRestarted,
  type RuntimeContainerStatus,
} from "../../../src/container/index.ts";
import { makePod } from "../../fixtures/pods.ts";

function podWith(restartPolicy: RestartPolicy | undefined, container: Container, deleted = false): Pod {
  return makePod({
    name: "p",
    namespace: "default",
    metadata: { uid: "u1", ...(deleted ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { restartPolicy, containers: [container] },
  });
}

function statusOf(name: string, state: RuntimeContainerStatus["state"], exitCode = 0) {
  const status = emptyPodStatus("u1", "p", "default");
  status.containerStatuses.push({
    id: "c1",
    name,
    state,
    createdAt: 1,
    startedAt: 1,
    finishedAt: state === "exited" ? 2 : 0,
    exitCode,
    reason: "",
    message: "",
    image: "busybox",
    imageRef: "",
    hash: "",
    restartCount: 0,
    containerType: "container",
    sandboxId: "s1",
    logPath: "",
    annotations: {},
    labels: {},
  });
  return status;
}

// kubecontainer.ShouldContainerBeRestarted with ContainerRestartRules (beta, on by default since
// 1.35): an exited container follows its own restartPolicy when it has one, else the pod's.
describe("shouldContainerBeRestarted", () => {
  const app: Container = { name: "app", image: "busybox" };
  const sidecar: Container = { name: "app", image: "busybox", restartPolicy: "Always" };
  const cases: {
    name: string;
    container: Container;
    pod: RestartPolicy | undefined;
    state?: RuntimeContainerStatus["state"];
    exitCode?: number;
    deleted?: boolean;
    want: boolean;
  }[] = [
    { name: "a deleted pod restarts nothing", container: app, pod: "Always", state: "exited", exitCode: 1, deleted: true, want: false },
    { name: "a container that never ran starts", container: app, pod: "Never", want: true },
    { name: "a running container is left alone", container: app, pod: "Always", state: "running", want: false },
    { name: "an unknown container starts again", container: app, pod: "Never", state: "unknown", want: true },
    { name: "a container stuck in created starts again", container: app, pod: "Never", state: "created", want: true },
    { name: "Always restarts a success", container: app, pod: "Always", state: "exited", exitCode: 0, want: true },
    { name: "Always restarts a failure", container: app, pod: "Always", state: "exited", exitCode: 1, want: true },
    { name: "no pod policy means Always", container: app, pod: undefined, state: "exited", exitCode: 0, want: true },
    { name: "OnFailure leaves a success alone", container: app, pod: "OnFailure", state: "exited", exitCode: 0, want: false },
    { name: "OnFailure restarts a failure", container: app, pod: "OnFailure", state: "exited", exitCode: 2, want: true },
    { name: "Never leaves a failure alone", container: app, pod: "Never", state: "exited", exitCode: 1, want: false },
    { name: "a sidecar's Always beats the pod's Never", container: sidecar, pod: "Never", state: "exited", exitCode: 1, want: true },
    { name: "a sidecar's Always beats the pod's OnFailure after a success", container: sidecar, pod: "OnFailure", state: "exited", exitCode: 0, want: true },
    { name: "a sidecar of a deleted pod stays down", container: sidecar, pod: "Always", state: "exited", exitCode: 1, deleted: true, want: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const status = c.state === undefined ? emptyPodStatus("u1", "p", "default") : statusOf(c.container.name, c.state, c.exitCode);
      expect(shouldContainerBeRestarted(c.container, podWith(c.pod, c.container, c.deleted), status)).toBe(c.want);
    });
  }
});

describe("resolveContainerPort", () => {
  const container: Pick<Container, "ports"> = { ports: [{ name: "http", containerPort: 8080 }] };
  test.each([
    ["a number", 80, 80],
    ["a number in a string", "81", 81],
    ["a port name", "http", 8080],
    ["an unknown name", "grpc", undefined],
  ] as const)("%s", (_label, port, want) => expect(resolveContainerPort(port, container)).toBe(want));
});
