import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import { canAdmitPod, type AdmissionNode } from "../../../src/admission/index.ts";
import { podRequests } from "../../../src/admission/requests.ts";
import { makePod } from "../../fixtures/pods.ts";

const node: AdmissionNode = {
  name: "node-1",
  labels: { "kubernetes.io/hostname": "node-1", "kubernetes.io/os": "linux", zone: "a", rank: "5" },
  taints: [],
  allocatable: { milliCPU: 10_000n, memory: 20n * 1024n * 1024n * 1024n, ephemeralStorage: 100n * 1024n * 1024n * 1024n, pods: 3 },
};

function pod(name: string, spec: Partial<Pod["spec"]> = {}, meta: Partial<Pod["metadata"]> = {}): Pod {
  return makePod({
    name,
    namespace: "default",
    metadata: { uid: name, annotations: { "kubernetes.io/config.source": "api" }, ...meta },
    spec: { nodeName: "node-1", containers: [{ name: "c", image: "busybox" }], ...spec },
  });
}
const withRequests = (name: string, requests: Record<string, string>, extra: Partial<Container> = {}) =>
  pod(name, { containers: [{ name: "c", image: "busybox", resources: { requests }, ...extra }] });
const staticPod = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, annotations: { "kubernetes.io/config.source": "file" } } });

describe("pod requests (resourcehelper.PodRequests)", () => {
  test("containers add up; an init container counts when larger; sidecars add to both; overhead on top", () => {
    const p = pod("p", {
      initContainers: [
        { name: "side", image: "x", restartPolicy: "Always", resources: { requests: { cpu: "100m" } } },
        { name: "init", image: "x", resources: { requests: { cpu: "2", memory: "1Gi" } } },
      ],
      containers: [
        { name: "a", image: "x", resources: { requests: { cpu: "500m", memory: "100Mi" } } },
        { name: "b", image: "x", resources: { requests: { cpu: "250m" } } },
      ],
      overhead: { cpu: "10m" },
    });
    expect(podRequests(p)).toEqual({ milliCPU: 2110n, memory: 1024n * 1024n * 1024n, ephemeralStorage: 0n });
  });
});

describe("canAdmitPod (the kubelet's predicate admit handler)", () => {
  const cases: [string, Pod, Pod[], string | undefined, string?][] = [
    ["a pod that fits is admitted", withRequests("p", { cpu: "1", memory: "1Gi" }), [withRequests("o", { cpu: "8" })], undefined],
    ["a pod without requests is admitted on a full node but for the pod count", pod("p"), [withRequests("o", { cpu: "10" })], undefined],
    // Exact fit: requested == allocatable - used is admitted (the rule is requested > capacity - used).
    ["a pod that takes exactly the cpu left is admitted", withRequests("p", { cpu: "2" }), [withRequests("o", { cpu: "8" })], undefined],
    ["a pod that takes exactly the memory left is admitted", withRequests("p", { memory: "15Gi" }), [withRequests("o", { memory: "5Gi" })], undefined],
    ["a pod that takes exactly the ephemeral storage left is admitted", withRequests("p", { "ephemeral-storage": "100Gi" }), [], undefined],
    ["one millicore over the cpu left: OutOfcpu", withRequests("p", { cpu: "2001m" }), [withRequests("o", { cpu: "8" })], "OutOfcpu", "Node didn't have enough resource: cpu, requested: 2001, used: 8000, capacity: 10000"],
    ["more cpu than is left: OutOfcpu", withRequests("p", { cpu: "3" }), [withRequests("o", { cpu: "8" })], "OutOfcpu", "Node didn't have enough resource: cpu, requested: 3000, used: 8000, capacity: 10000"],
    ["more memory than allocatable: OutOfmemory", withRequests("p", { memory: "21Gi" }), [], "OutOfmemory", `Node didn't have enough resource: memory, requested: ${21 * 1024 ** 3}, used: 0, capacity: ${20 * 1024 ** 3}`],
    ["more pods than --max-pods: OutOfpods, before cpu", withRequests("p", { cpu: "20" }), [pod("a"), pod("b"), pod("c")], "OutOfpods", "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3"],
    ["ephemeral storage: OutOfephemeral-storage", withRequests("p", { "ephemeral-storage": "200Gi" }), [], "OutOfephemeral-storage"],
    ["another node's name: NodeName", pod("p", { nodeName: "node-2" }), [], "NodeName", "Predicate NodeName failed: node(s) didn't match the requested node name"],
    ["a node selector the node lacks: NodeAffinity", pod("p", { nodeSelector: { zone: "b" } }), [], "NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"],
    ["a matching node selector is admitted", pod("p", { nodeSelector: { zone: "a" } }), [], undefined],
    [
      "required node affinity: one term must match",
      pod("p", { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] }, { matchExpressions: [{ key: "rank", operator: "Gt", values: ["3"] }] }] } } } }),
      [],
      undefined,
    ],
    [
      "required node affinity that nothing matches: NodeAffinity",
      pod("p", { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, { matchFields: [{ key: "metadata.name", operator: "In", values: ["node-2"] }] }] } } } }),
      [],
      "NodeAffinity",
    ],
    [
      "a host port another pod holds: NodePorts",
      pod("p", { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, hostPort: 8080 }] }] }),
      [pod("o", { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, hostPort: 8080, hostIP: "127.0.0.1" }] }] })],
      "NodePorts",
      "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
    ],
    [
      "the same host port with another protocol is free",
      pod("p", { containers: [{ name: "c", image: "x", ports: [{ containerPort: 53, hostPort: 53, protocol: "UDP" }] }] }),
      [pod("o", { containers: [{ name: "c", image: "x", ports: [{ containerPort: 53, hostPort: 53 }] }] })],
      undefined,
    ],
    ["another OS in spec.os: PodOSNotSupported", pod("p", { os: { name: "windows" } }), [], "PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"],
    ["a kubernetes.io/os label of another OS: PodOSSelectorNodeLabelDoesNotMatch", pod("p", {}, { labels: { "kubernetes.io/os": "windows" } }), [], "PodOSSelectorNodeLabelDoesNotMatch"],
    ["resources are the first reason when several fail", withRequests("p", { cpu: "20" }, { ports: [] }), [], "OutOfcpu"],
    [
      "a static pod short of resources only is rejected as the kubelet does when preemption finds nothing",
      staticPod(withRequests("p", { cpu: "12" })),
      [],
      "UnexpectedAdmissionError",
      "Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 2000), ]",
    ],
    ["a static pod's non-resource reason comes first", staticPod(pod("p", { nodeName: "node-2", containers: [{ name: "c", image: "x", resources: { requests: { cpu: "12" } } }] })), [], "NodeName"],
  ];
  test.each(cases.map(([name, p, others, reason, message]) => ({ name, p, others, reason, message })))("$name", ({ p, others, reason, message }) => {
    const r = canAdmitPod(p, others, node);
    if (reason === undefined) return expect(r).toEqual({ admit: true });
    expect(r.admit).toBe(false);
    if (r.admit) return;
    expect(r.reason).toBe(reason);
    if (message !== undefined) expect(r.message).toBe(message);
  });

  test("an untolerated NoExecute taint rejects API pods, not static pods", () => {
    const tainted = { ...node, taints: [{ key: "dedicated", value: "db", effect: "NoExecute" }] };
    expect(canAdmitPod(pod("p"), [], tainted)).toMatchObject({ reason: "TaintToleration", message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate" });
    expect(canAdmitPod(pod("p", { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoExecute" }] }), [], tainted)).toEqual({ admit: true });
    expect(canAdmitPod(staticPod(pod("p")), [], tainted)).toEqual({ admit: true });
    // The toleration's effect must match the taint's: the same key and value for NoSchedule do not tolerate NoExecute.
    expect(canAdmitPod(pod("p", { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }] }), [], tainted)).toMatchObject({ reason: "TaintToleration" });
    // An empty effect matches every effect.
    expect(canAdmitPod(pod("p", { tolerations: [{ key: "dedicated", operator: "Exists" }] }), [], tainted)).toEqual({ admit: true });
    // NoSchedule taints are the scheduler's business.
    expect(canAdmitPod(pod("p"), [], { ...node, taints: [{ key: "k", effect: "NoSchedule" }] })).toEqual({ admit: true });
  });
});
