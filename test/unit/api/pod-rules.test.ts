// The pod rules several subsystems share (src/api/pod-rules.ts), against the kubelet's
// pkg/kubelet/types and podutil: critical pods, sidecars, the default restart policy.
import { describe, expect, test } from "bun:test";
import {
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  isCriticalPod,
  isCriticalPodBasedOnPriority,
  isMirrorPod,
  isNodeCriticalPod,
  isRestartableInitContainer,
  isSidecarContainer,
  podRestartPolicy,
  type Container,
  type Pod,
  type RestartPolicy,
} from "../../../src/api/index.ts";
import { SystemCriticalPriority } from "../../../src/api/pod-rules.ts";
import { makePod } from "../../fixtures/pods.ts";

interface PodShape {
  source?: string;
  mirror?: boolean;
  priority?: number;
  priorityClassName?: string;
  restartPolicy?: RestartPolicy;
  initContainers?: Container[];
  containers?: Container[];
}

function pod(shape: PodShape = {}): Pod {
  const annotations: Record<string, string> = {};
  if (shape.source) annotations[ConfigSourceAnnotationKey] = shape.source;
  if (shape.mirror) annotations[ConfigMirrorAnnotationKey] = "hash";
  return makePod({
    name: "p",
    namespace: "default",
    metadata: { annotations },
    spec: {
      priority: shape.priority,
      priorityClassName: shape.priorityClassName,
      restartPolicy: shape.restartPolicy,
      initContainers: shape.initContainers,
      containers: shape.containers ?? [{ name: "app", image: "busybox" }],
    },
  });
}

test("SystemCriticalPriority is scheduling.SystemCriticalPriority, 2 * 10^9", () => {
  expect(SystemCriticalPriority).toBe(2_000_000_000);
});

describe("isCriticalPod (types.IsCriticalPod)", () => {
  test.each([
    ["a pod from the apiserver of no priority", { source: "api" }, false],
    ["a pod of ordinary priority", { source: "api", priority: 1000 }, false],
    ["one below system-critical", { source: "api", priority: 1_999_999_999 }, false],
    ["system-cluster-critical (2000000000)", { source: "api", priority: 2_000_000_000 }, true],
    ["system-node-critical (2000001000)", { source: "api", priority: 2_000_001_000 }, true],
    ["a static pod from a file", { source: "file" }, true],
    ["a static pod from a URL", { source: "http" }, true],
    ["a mirror pod", { source: "api", mirror: true }, true],
    ["a pod with no config source (not static)", {}, false],
  ] as const)("%s: %p", (_, shape, want) => {
    expect(isCriticalPod(pod(shape))).toBe(want);
  });

  test("the static-pod test can be overridden: the eviction manager's evictStaticPods", () => {
    expect(isCriticalPod(pod({ source: "file" }), false)).toBe(false);
    expect(isCriticalPod(pod({ source: "file", priority: SystemCriticalPriority }), false)).toBe(true);
    expect(isCriticalPod(pod({ source: "api", mirror: true }), false)).toBe(true);
  });

  test.each([
    [undefined, false],
    [0, false],
    [-5, false],
    [SystemCriticalPriority - 1, false],
    [SystemCriticalPriority, true],
  ] as const)("isCriticalPodBasedOnPriority(%p) is %p", (priority, want) => {
    expect(isCriticalPodBasedOnPriority(priority)).toBe(want);
  });
});

describe("isNodeCriticalPod (types.IsNodeCriticalPod)", () => {
  test.each([
    ["system-node-critical with its priority", { source: "api", priority: 2_000_001_000, priorityClassName: "system-node-critical" }, true],
    ["a static pod of class system-node-critical", { source: "file", priorityClassName: "system-node-critical" }, true],
    ["the class without a critical priority, from the apiserver", { source: "api", priorityClassName: "system-node-critical" }, false],
    ["system-cluster-critical", { source: "api", priority: 2_000_000_000, priorityClassName: "system-cluster-critical" }, false],
    ["a static pod of no class", { source: "file" }, false],
  ] as const)("%s: %p", (_, shape, want) => {
    expect(isNodeCriticalPod(pod(shape))).toBe(want);
  });
});

describe("isMirrorPod (types.IsMirrorPod)", () => {
  test("the kubernetes.io/config.mirror annotation, whatever its value", () => {
    expect(isMirrorPod(pod({ mirror: true }))).toBe(true);
    expect(isMirrorPod(pod({ source: "file" }))).toBe(false);
  });
});

describe("sidecars", () => {
  const sidecar: Container = { name: "log", image: "busybox", restartPolicy: "Always" };
  const init: Container = { name: "setup", image: "busybox" };
  const initNever: Container = { name: "once", image: "busybox", restartPolicy: "Never" };
  // ContainerRestartRules: a regular container may carry a policy of its own.
  const regularAlways: Container = { name: "app", image: "busybox", restartPolicy: "Always" };

  test.each([
    ["restartPolicy Always", sidecar, true],
    ["no restartPolicy", init, false],
    ["restartPolicy Never", initNever, false],
  ] as const)("isRestartableInitContainer, %s: %p", (_, container, want) => {
    expect(isRestartableInitContainer(container)).toBe(want);
  });

  test.each([
    ["an init container with Always", sidecar, true],
    ["an init container without a policy", init, false],
    ["a regular container with Always", regularAlways, false],
  ] as const)("isSidecarContainer, %s: %p", (_, container, want) => {
    const p = pod({ initContainers: [init, sidecar, initNever], containers: [regularAlways] });
    expect(isSidecarContainer(p, container)).toBe(want);
  });
});

describe("podRestartPolicy", () => {
  test.each([
    [undefined, "Always"],
    ["Always", "Always"],
    ["OnFailure", "OnFailure"],
    ["Never", "Never"],
  ] as const)("spec.restartPolicy %p runs as %p", (policy, want) => {
    expect(podRestartPolicy(pod({ restartPolicy: policy }))).toBe(want);
  });
});
