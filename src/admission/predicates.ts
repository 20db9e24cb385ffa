/**
 * The kubelet's pod admission (lifecycle/predicate.go predicateAdmitHandler and the scheduler's
 * AdmissionCheck it calls): a pod from any source is admitted only if its OS is the node's, it
 * fits the node's allocatable next to the pods already admitted (pods, cpu, memory,
 * ephemeral-storage), its node name, node selector and required node affinity match the node,
 * its host ports are free, and (but for static pods) it tolerates the node's NoExecute taints.
 * The first failure is the reason. Static pods are critical: when resources are all they lack,
 * the kubelet would preempt other pods for them; bunlet preempts nothing and rejects them as the
 * kubelet does when no set of pods can be preempted. Pure.
 */
import { isStaticPod, type Pod, type Taint, type Toleration } from "../api/index.ts";
import { matchesRequiredNodeAffinity } from "./node-affinity.ts";
import { podRequestsWithStatus } from "./requests.ts";

/** The node as admission sees it. */
export interface AdmissionNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** Allocatable: cpu in millicores, memory and ephemeral storage in bytes, pods as a count. */
  allocatable: { milliCPU: bigint; memory: bigint; ephemeralStorage: bigint; pods: number };
}

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

type Failure = { kind: "resource"; resource: string; requested: bigint; used: bigint; capacity: bigint } | { kind: "predicate"; name: string; desc: string };

const OUT_OF: Record<string, string> = { cpu: "OutOfcpu", memory: "OutOfmemory", "ephemeral-storage": "OutOfephemeral-storage", pods: "OutOfpods" };

function fits(pod: Pod, others: Pod[], node: AdmissionNode): Failure[] {
  const failures: Failure[] = [];
  const a = node.allocatable;
  if (others.length + 1 > a.pods) {
    failures.push({ kind: "resource", resource: "pods", requested: 1n, used: BigInt(others.length), capacity: BigInt(a.pods) });
  }
  const want = podRequestsWithStatus(pod);
  if (want.milliCPU === 0n && want.memory === 0n && want.ephemeralStorage === 0n) return failures;
  const used = others.map(podRequestsWithStatus).reduce(
    (s, r) => ({ milliCPU: s.milliCPU + r.milliCPU, memory: s.memory + r.memory, ephemeralStorage: s.ephemeralStorage + r.ephemeralStorage }),
    { milliCPU: 0n, memory: 0n, ephemeralStorage: 0n },
  );
  const check = (resource: string, requested: bigint, usedBy: bigint, capacity: bigint) => {
    if (requested > 0n && requested > capacity - usedBy) failures.push({ kind: "resource", resource, requested, used: usedBy, capacity });
  };
  check("cpu", want.milliCPU, used.milliCPU, a.milliCPU);
  check("memory", want.memory, used.memory, a.memory);
  check("ephemeral-storage", want.ephemeralStorage, used.ephemeralStorage, a.ephemeralStorage);
  return failures;
}

interface HostPort {
  hostIP: string;
  protocol: string;
  port: number;
}

function hostPorts(pod: Pod): HostPort[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers]
    .flatMap((c) => c.ports ?? [])
    .filter((p) => (p.hostPort ?? 0) > 0)
    .map((p) => ({ hostIP: p.hostIP || "0.0.0.0", protocol: p.protocol || "TCP", port: p.hostPort! }));
}

/** HostPortInfo.CheckConflict: same protocol and port, and either address is the wildcard or they are equal. */
function portsConflict(pod: Pod, others: Pod[]): boolean {
  const used = others.flatMap(hostPorts);
  return hostPorts(pod).some((p) =>
    used.some((u) => u.protocol === p.protocol && u.port === p.port && (u.hostIP === "0.0.0.0" || p.hostIP === "0.0.0.0" || u.hostIP === p.hostIP)),
  );
}

/** ToleratesTaint for one taint (v1helper). */
function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== "Exists") return false;
  if (t.operator === "Exists") return true;
  return (t.value ?? "") === (taint.value ?? "");
}

function generalFilter(pod: Pod, others: Pod[], node: AdmissionNode): Failure[] {
  const failures = fits(pod, others, node);
  if (!matchesRequiredNodeAffinity(pod, node)) failures.push({ kind: "predicate", name: "NodeAffinity", desc: "node(s) didn't match Pod's node affinity/selector" });
  if (pod.spec.nodeName && pod.spec.nodeName !== node.name) failures.push({ kind: "predicate", name: "NodeName", desc: "node(s) didn't match the requested node name" });
  if (portsConflict(pod, others)) failures.push({ kind: "predicate", name: "NodePorts", desc: "node(s) didn't have free ports for the requested pod ports" });
  if (!isStaticPod(pod)) {
    const untolerated = node.taints.some((taint) => taint.effect === "NoExecute" && !(pod.spec.tolerations ?? []).some((t) => tolerates(t, taint)));
    if (untolerated) failures.push({ kind: "predicate", name: "TaintToleration", desc: "node(s) had taints that the pod didn't tolerate" });
  }
  return failures;
}

const resourceMessage = (f: Extract<Failure, { kind: "resource" }>) =>
  `Node didn't have enough resource: ${f.resource}, requested: ${f.requested}, used: ${f.used}, capacity: ${f.capacity}`;

/** canAdmitPod: `others` are the pods already admitted and still active (not this one). */
export function canAdmitPod(pod: Pod, others: Pod[], node: AdmissionNode, nodeOS = "linux"): AdmitResult {
  const osLabel = pod.metadata.labels?.["kubernetes.io/os"];
  if (osLabel !== undefined && osLabel !== nodeOS) {
    return { admit: false, reason: "PodOSSelectorNodeLabelDoesNotMatch", message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label" };
  }
  if (pod.spec.os && pod.spec.os.name !== nodeOS) {
    return { admit: false, reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  const failures = generalFilter(pod, others, node);
  if (failures.length === 0) return { admit: true };
  const resources = failures.filter((f): f is Extract<Failure, { kind: "resource" }> => f.kind === "resource");
  // A static pod is critical: only non-resource reasons count, and missing resources would be
  // reclaimed by preempting other pods, which bunlet does not do.
  if (isStaticPod(pod)) {
    const other = failures.find((f) => f.kind === "predicate");
    if (!other) {
      const list = resources.map((f) => `(res: ${f.resource}, q: ${f.requested - (f.capacity - f.used)}), `).join("");
      return {
        admit: false,
        reason: "UnexpectedAdmissionError",
        message: `Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [${list}]`,
      };
    }
  }
  const first = isStaticPod(pod) ? failures.find((f) => f.kind === "predicate")! : failures[0]!;
  if (first.kind === "resource") return { admit: false, reason: OUT_OF[first.resource] ?? `OutOf${first.resource}`, message: resourceMessage(first) };
  return { admit: false, reason: first.name, message: `Predicate ${first.name} failed: ${first.desc}` };
}
