import type { RuntimePodStatus, RuntimeContainerStatus, RuntimeSandboxStatus } from "../../../src/container/index.ts";
/** Runtime-side builders (what the runtime manager reports) for status tests. */

export const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
export const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export function rc(name: string, extra: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return {
    id: `${name}-id`,
    name,
    state: "running",
    createdAt: T0,
    startedAt: T0 + 1_000,
    finishedAt: 0,
    exitCode: 0,
    reason: "",
    message: "",
    image: "docker.io/library/busybox:1.36",
    imageRef: "docker.io/library/busybox@sha256:abc",
    hash: "1",
    restartCount: 0,
    containerType: "container",
    sandboxId: "sb1",
    logPath: "",
    annotations: {},
    labels: {},
    ...extra,
  };
}

export function exited(name: string, exitCode: number, extra: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return rc(name, { state: "exited", exitCode, reason: exitCode === 0 ? "Completed" : "Error", finishedAt: T0 + 5_000, ...extra });
}

export function sandbox(extra: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus {
  return {
    id: "sb1",
    state: "ready",
    createdAt: T0,
    attempt: 0,
    ips: ["10.88.0.5"],
    hostNetwork: false,
    name: "p",
    namespace: "ns",
    uid: "uid-1",
    labels: {},
    annotations: {},
    ...extra,
  };
}

export function runtimeStatus(containerStatuses: RuntimeContainerStatus[], sandboxes: RuntimeSandboxStatus[] = [sandbox()]): RuntimePodStatus {
  return { uid: "uid-1", name: "p", namespace: "ns", ips: sandboxes[0]?.ips ?? [], sandboxStatuses: sandboxes, containerStatuses };
}
