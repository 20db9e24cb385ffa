import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { admitDeclaredFeatures, declaredFeatureTable, nodeDeclaredFeatures } from "../../../src/admission/declared-features.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (spec: Partial<Pod["spec"]> = {}): Pod => makePod({ name: "p", namespace: "ns", metadata: { uid: "u" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } });

describe("node declared features (KEP-5328)", () => {
  test("the table is the kubelet v1.37.2 registry, sorted, each feature with bunlet's decision and why", () => {
    expect(declaredFeatureTable.map((f) => [f.name, f.declared])).toEqual([
      ["DRANodeAllocatableResources", false],
      ["DRAOptionalNodeOperations", false],
      ["ExtendWebSocketsToKubelet", false],
      ["InPlacePodLevelResourcesVerticalScaling", false],
      ["InPlacePodVerticalScalingInitContainers", false],
      ["InPlacePodVerticalScalingMemoryBackedVolumes", false],
      ["RestartAllContainersOnContainerExits", false],
      ["UserNamespacesHostNetworkSupport", false],
      ["VolumeBindMountOptions", false],
    ]);
    for (const f of declaredFeatureTable) expect(f.why.length).toBeGreaterThan(20);
    expect(nodeDeclaredFeatures()).toEqual([]);
  });

  test.each([
    ["a plain pod", pod(), undefined],
    ["a RestartAllContainers rule", pod({ containers: [{ name: "c", image: "i", restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] }] }), "RestartAllContainersOnContainerExits"],
    ["a Restart rule", pod({ containers: [{ name: "c", image: "i", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }] }), undefined],
    ["host network in a user namespace", pod({ hostNetwork: true, hostUsers: false }), "UserNamespacesHostNetworkSupport"],
    ["host network, host users", pod({ hostNetwork: true }), undefined],
    ["bindMountOptions on an init container", pod({ initContainers: [{ name: "i", image: "i", volumeMounts: [{ name: "v", mountPath: "/v", bindMountOptions: ["nosuid"] } as never] }] }), "VolumeBindMountOptions"],
  ])("%s → requires %s", (_name, p, feature) => {
    const result = admitDeclaredFeatures(p, nodeDeclaredFeatures());
    if (feature === undefined) expect(result).toEqual({ admit: true });
    else expect(result).toEqual({ admit: false, reason: "PodFeatureUnsupported", message: `Pod requires node features that are not available: ${feature}` });
    // A node declaring the feature admits the pod.
    expect(admitDeclaredFeatures(p, declaredFeatureTable.map((f) => f.name))).toEqual({ admit: true });
  });

  test("several missing features are named in the registry's order", () => {
    const p = pod({ hostNetwork: true, hostUsers: false, containers: [{ name: "c", image: "i", restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [1] } }] }] });
    expect(admitDeclaredFeatures(p, [])).toMatchObject({ message: "Pod requires node features that are not available: RestartAllContainersOnContainerExits, UserNamespacesHostNetworkSupport" });
  });
});
