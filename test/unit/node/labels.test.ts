// The Node's own labels (initialNode): one function that registration and pod admission share.
import { expect, test } from "bun:test";
import { nodeLabels } from "../../../src/node/labels.ts";
import { initialNode } from "../../../src/node/register.ts";
import type { MachineInfo } from "../../../src/node/machine.ts";
import type { NodeStatusInputs } from "../../../src/node/setters.ts";

test.each([
  ["the defaults", {}, { "kubernetes.io/hostname": "edge-1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64" }],
  ["--node-labels beside them", { tier: "edge" }, { "kubernetes.io/hostname": "edge-1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64", tier: "edge" }],
  ["--node-labels win over a default", { "kubernetes.io/hostname": "other" }, { "kubernetes.io/hostname": "other", "kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64" }],
] as const)("%s", (_, extra, want) => {
  expect(nodeLabels({ hostname: "edge-1", operatingSystem: "linux", architecture: "arm64", nodeLabels: extra })).toEqual(want);
});

test("the registered Node carries exactly these labels", () => {
  const machine = { operatingSystem: "linux", architecture: "arm64", hugePages: [], memoryCapacityBytes: 1, rootfsCapacityBytes: 1, numCores: 1 } as unknown as MachineInfo;
  const inputs = { now: 0, hostname: "edge-1", nodeIPs: [], machine, maxPods: 110, kubeletPort: 10250, kubeletVersion: "v1.37.2", notReadyReasons: [], pressure: { memory: false, disk: false, pid: false } } as NodeStatusInputs;
  const node = initialNode({ nodeName: "edge-1", hostname: "edge-1", nodeLabels: { tier: "edge" }, registerWithTaints: [] }, inputs);
  expect(node.metadata?.labels).toEqual(nodeLabels({ hostname: "edge-1", operatingSystem: "linux", architecture: "arm64", nodeLabels: { tier: "edge" } }));
});
