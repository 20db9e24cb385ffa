/**
 * Pod admission as HandlePodAdditions runs it, in the kubelet's order of admit handlers: the
 * sysctl allowlist (the safe sysctls this kernel namespaces and --allowed-unsafe-sysctls), then
 * the predicates. For the predicates, the pods already admitted and still active
 * (filterOutInactivePods) are the others; a pod that does not fit is rejected (rejectPod): a
 * Warning event with the reason, and the status phase Failed, the reason and "Pod was rejected:
 * <message>", and no worker, so no container starts. The node is this node as bunlet knows it
 * itself: its labels (hostname, OS, arch, --node-labels), --register-with-taints and allocatable
 * from the machine (capacity less kubeReserved, systemReserved and the hard eviction thresholds,
 * as the Node reports it; pods = --max-pods).
 */
import { existsSync } from "node:fs";
import { release } from "node:os";
import { dirname, resolve } from "node:path";
import { Quantity, computePodQOS, podRef, podUID, type Pod } from "../api/index.ts";
import { admitDeclaredFeatures, canAdmitPod, nodeDeclaredFeatures, createSysctlAllowlist, safeSysctls, SysctlPatternError, type AdmissionNode, type SysctlAllowlist } from "../admission/index.ts";
import { ConfigError, type BunletConfig } from "../config/index.ts";
import { podReference, type EventRecorder } from "../events/index.ts";
import type { Logger } from "../lib/index.ts";
import { capacityAndAllocatable, nodeLabels, readMachineInfo } from "../node/index.ts";
import type { PodWorkers, StatusManager } from "./types.ts";

/** The root dir, or its nearest existing ancestor (same filesystem) before anything created it. */
function existingDir(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The node as admission sees it; `reservation` is the container manager's (absent: the default eviction thresholds). */
export function admissionNode(config: BunletConfig, reservation?: ReadonlyMap<string, bigint>): AdmissionNode {
  const machine = readMachineInfo(existingDir(config.rootDir));
  const { allocatable } = capacityAndAllocatable(machine, config.maxPods, reservation);
  const q = (name: string) => Quantity.parse(allocatable[name] ?? "0");
  return {
    name: config.nodeName,
    // The labels registration gives the Node (wire-node.ts: hostname = the node name).
    labels: nodeLabels({ hostname: config.nodeName, operatingSystem: machine.operatingSystem, architecture: machine.architecture, nodeLabels: config.nodeLabels }),
    taints: config.registerWithTaints,
    allocatable: { milliCPU: q("cpu").milliValue(), memory: q("memory").value(), ephemeralStorage: q("ephemeral-storage").value(), pods: config.maxPods },
  };
}

/**
 * The kubelet's sysctl admit handler: safe sysctls (as this kernel namespaces them) and the
 * allowed unsafe ones. A pattern that is not a namespaced sysctl stops the start, as it stops the
 * kubelet's, with exit 2 as for a bad flag.
 */
export function sysctlAllowlist(config: BunletConfig, kernelRelease = release()): SysctlAllowlist {
  try {
    return createSysctlAllowlist([...safeSysctls(kernelRelease), ...config.allowedUnsafeSysctls]);
  } catch (err) {
    if (err instanceof SysctlPatternError) throw new ConfigError("allowedUnsafeSysctls", `bunlet: --allowed-unsafe-sysctls: ${err.message}`);
    throw err;
  }
}

/** The admit handlers in the kubelet's order: declared features, the sysctl allowlist, then the predicates. */
export function admitHandlers(node: AdmissionNode, sysctls: SysctlAllowlist): (pod: Pod, others: Pod[]) => AdmitResult {
  return (pod, others) => {
    const features = admitDeclaredFeatures(pod, nodeDeclaredFeatures());
    const result = features.admit ? sysctls.admit(pod) : features;
    return result.admit ? canAdmitPod(pod, others, node) : result;
  };
}

type AdmitResult = ReturnType<typeof canAdmitPod>;

export interface PodAdmitterDeps {
  node: AdmissionNode;
  sysctls: SysctlAllowlist;
  /**
   * Admission through the allocation manager (the pod with the allocation a previous run kept,
   * against the active pods' allocations; records the new pod's allocation). Default: the admit
   * handlers against the active pods as they are.
   */
  addPod?(active: Pod[], pod: Pod): AdmitResult;
  podWorkers: Pick<PodWorkers, "isPodKnownTerminated" | "isPodTerminationRequested">;
  statusManager: Pick<StatusManager, "getPodPhase" | "setPodStatus" | "terminatePod">;
  recorder: EventRecorder;
  log: Logger;
}

export function createPodAdmitter(deps: PodAdmitterDeps): (pod: Pod, existing: Pod[]) => boolean {
  const { podWorkers, statusManager } = deps;
  const isActive = (p: Pod): boolean => {
    const uid = podUID(p);
    if (podWorkers.isPodKnownTerminated(uid)) return false;
    const phase = statusManager.getPodPhase(uid) ?? p.status?.phase;
    return !((phase === "Succeeded" || phase === "Failed") && !podWorkers.isPodTerminationRequested(uid));
  };
  return (pod, existing) => {
    // A pod another component asked to terminate is not admitted again.
    if (podWorkers.isPodTerminationRequested(podUID(pod))) return true;
    const active = existing.filter(isActive);
    const result = deps.addPod ? deps.addPod(active, pod) : admitHandlers(deps.node, deps.sysctls)(pod, active);
    if (result.admit) return true;
    deps.log.debug("Pod was rejected", { pod: podRef(pod), podUID: podUID(pod), reason: result.reason, message: result.message }, 2);
    deps.recorder.event(podReference(pod), "Warning", result.reason, result.message);
    statusManager.setPodStatus(pod, { qosClass: computePodQOS(pod), phase: "Failed", reason: result.reason, message: `Pod was rejected: ${result.message}` });
    // No container can run: the status is final (the kubelet's CouldHaveRunningContainers is false for a pod no worker knows).
    statusManager.terminatePod(pod);
    return false;
  };
}
