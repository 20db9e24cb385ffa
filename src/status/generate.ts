/**
 * The pod's API status from the runtime's view (kubelet_pods.go generateAPIPodStatus), as a pure
 * function: pod IPs, QoS class, container statuses, phase (terminal phases are sticky), readiness
 * and startup (no probe → ready/started once running; a prober plugs in through probeResult),
 * ephemeral container statuses (never ready, never started: the prober does not look at them),
 * conditions with transition times carried from the previous status, host IPs.
 */
import { computePodQOS, type ContainerStatus, type Pod, type PodCondition, type PodStatus } from "../api/index.ts";
import { isRestartableInitContainer, type RuntimePodStatus } from "../container/index.ts";
import { ipFamily } from "../lib/index.ts";
import {
  DisruptionTarget,
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
  generatePodScheduledCondition,
  kubeletOwnedConditions,
} from "./conditions.ts";
import { convertToAPIContainerStatuses, type WaitingReason } from "./container-statuses.ts";
import { getPhase, isPodPhaseTerminal } from "./phase.ts";
import { rfc3339 } from "./time.ts";

/**
 * A prober's latest result for a container: true (success), false (failure) or undefined (no
 * result yet). Only consulted for containers that define that probe.
 */
export type ProbeResult = (probe: "readiness" | "startup", containerName: string, containerID: string) => boolean | undefined;

/** lifecycle.PodSyncHandler: asked at every status generation whether the pod must fail now. */
export interface PodSyncHandler {
  shouldEvict(pod: Pod): { evict: boolean; reason?: string; message?: string };
}

export interface GenerateOptions {
  /** The status last set for the pod (the status manager's), else pod.status is the base. */
  oldStatus?: PodStatus;
  /** The pod worker knows no container will run again. */
  podIsTerminal: boolean;
  /** Why a container that should run is not running (the runtime manager's reason cache). */
  waitingReason: WaitingReason;
  /** The node's IPs, primary first. */
  hostIPs: string[];
  now: number;
  probeResult?: ProbeResult;
  /** Modules that may ask for the pod to fail (lifecycle.PodSyncHandler: the active deadline). */
  podSyncHandlers?: readonly PodSyncHandler[];
  /**
   * Did a container started at this time (ms) run before bunlet started? Such a container without
   * a readiness result yet keeps the apiserver's Ready (the kubelet's setReadyStateOnKubeletRestart).
   */
  ranBeforeRestart?: (startedAtMs: number) => boolean;
  /** containerID prefix; default "containerd". */
  runtimeName?: string;
}

export function generateAPIPodStatus(pod: Pod, podStatus: RuntimePodStatus, opts: GenerateOptions): PodStatus {
  const old = opts.oldStatus ?? pod.status ?? {};
  const apiPhase = pod.status?.phase;
  const initContainers = pod.spec.initContainers ?? [];
  const convert = (containers: Pod["spec"]["containers"], previous: ContainerStatus[] | undefined, isInit: boolean) =>
    convertToAPIContainerStatuses({
      pod,
      podStatus,
      previous,
      containers,
      hasInitContainers: initContainers.length > 0,
      isInit,
      waitingReason: opts.waitingReason,
      runtimeName: opts.runtimeName ?? "containerd",
    });
  const containerStatuses = convert(pod.spec.containers, old.containerStatuses, false);
  const initContainerStatuses = convert(initContainers, old.initContainerStatuses, true);
  // Ephemeral containers are reported like regular ones, but count for neither phase nor conditions.
  const ephemeralContainerStatuses = convert(pod.spec.ephemeralContainers ?? [], old.ephemeralContainerStatuses, false);

  let phase = getPhase(pod, containerStatuses, initContainerStatuses, opts.podIsTerminal, hasActiveRegularContainer(pod, podStatus));
  // A terminal phase never goes back: the status manager's, then the API's, wins.
  if (!isPodPhaseTerminal(phase)) {
    if (isPodPhaseTerminal(old.phase)) phase = old.phase!;
    else if (isPodPhaseTerminal(apiPhase)) phase = apiPhase!;
  }
  let reason: string | undefined;
  let message: string | undefined;
  if (phase === old.phase) {
    reason = old.reason || pod.status?.reason || undefined;
    message = old.message || pod.status?.message || undefined;
  }
  // A pod sync handler (the active deadline) that wants the pod gone makes it Failed, with its words.
  for (const handler of opts.podSyncHandlers ?? []) {
    const result = handler.shouldEvict(pod);
    if (!result.evict) continue;
    phase = "Failed";
    reason = result.reason || undefined;
    message = result.message || undefined;
    break;
  }
  // The apiserver's terminal phase is final: no transition out of it.
  if (isPodPhaseTerminal(apiPhase) && phase !== apiPhase) phase = apiPhase!;

  applyProbeResults(pod, containerStatuses, initContainerStatuses, opts.probeResult, opts.ranBeforeRestart);

  const conditions = (pod.status?.conditions ?? []).filter((c) => !kubeletOwnedConditions.has(c.type) && c.type !== DisruptionTarget);
  const disruption = old.conditions?.find((c) => c.type === DisruptionTarget) ?? pod.status?.conditions?.find((c) => c.type === DisruptionTarget);
  if (disruption) conditions.push(disruption);
  const all = [...initContainerStatuses, ...containerStatuses];
  conditions.push(generatePodReadyToStartContainersCondition(pod, podStatus));
  conditions.push(generatePodInitializedCondition(pod, all, phase));
  conditions.push(generatePodReadyCondition(pod, conditions, all, phase));
  conditions.push(generateContainersReadyCondition(pod, all, phase));
  conditions.push(generatePodScheduledCondition());
  const stamped = conditions.map((c) => (kubeletOwnedConditions.has(c.type) ? withTransitionTime(c, old.conditions, opts.now) : c));

  const status: PodStatus = { phase, conditions: stamped };
  if (message) status.message = message;
  if (reason) status.reason = reason;
  const hostIPs = opts.hostIPs.slice(0, 2);
  if (hostIPs.length > 0) {
    status.hostIP = hostIPs[0];
    status.hostIPs = hostIPs.map((ip) => ({ ip }));
  }
  const podIPs = podIPsFor(pod, podStatus.ips, hostIPs);
  if (podIPs.length > 0) {
    status.podIP = podIPs[0];
    status.podIPs = podIPs.map((ip) => ({ ip }));
  }
  if (old.startTime) status.startTime = old.startTime;
  if (initContainers.length > 0) status.initContainerStatuses = initContainerStatuses;
  status.containerStatuses = containerStatuses;
  if (ephemeralContainerStatuses.length > 0) status.ephemeralContainerStatuses = ephemeralContainerStatuses;
  status.qosClass = computePodQOS(pod);
  return status;
}

/**
 * Keeps the condition's previous lastTransitionTime while its status is unchanged, else now.
 * lastProbeTime is null, as the kubelet's conditions serialise.
 */
export function withTransitionTime(c: PodCondition, previous: PodCondition[] | undefined, now: number): PodCondition {
  const before = previous?.find((p) => p.type === c.type);
  const lastTransitionTime = before !== undefined && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(now);
  return {
    type: c.type,
    ...(c.observedGeneration && { observedGeneration: c.observedGeneration }),
    status: c.status,
    lastProbeTime: null,
    lastTransitionTime,
    ...(c.reason && { reason: c.reason }),
    ...(c.message && { message: c.message }),
  };
}

/** Started and ready, as the probe manager reports them (prober/prober_manager.go UpdatePodStatus). */
function applyProbeResults(
  pod: Pod,
  regular: ContainerStatus[],
  init: ContainerStatus[],
  probeResult: ProbeResult | undefined,
  ranBeforeRestart: ((startedAtMs: number) => boolean) | undefined,
): void {
  const specOf = (name: string) => [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === name);
  const passed = (probe: "readiness" | "startup", status: ContainerStatus, defined: boolean) =>
    !defined || probeResult?.(probe, status.name, status.containerID ?? "") === true;
  // The apiserver's copy of the pod (the status bunlet reported before it restarted).
  const readyInApiserver = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  const ready = (status: ContainerStatus, defined: boolean): boolean => {
    if (!defined) return true;
    const result = probeResult?.("readiness", status.name, status.containerID ?? "");
    if (result !== undefined) return result;
    const startedAt = Date.parse(status.state?.running?.startedAt ?? "");
    return Number.isFinite(startedAt) && ranBeforeRestart?.(startedAt) === true && readyInApiserver;
  };
  const fill = (status: ContainerStatus, canBeReady: boolean) => {
    const spec = specOf(status.name);
    const running = status.state?.running !== undefined;
    const started = running && passed("startup", status, spec?.startupProbe !== undefined);
    status.started = started;
    status.ready = canBeReady && started && ready(status, spec?.readinessProbe !== undefined);
  };
  for (const status of regular) fill(status, true);
  for (const status of init) {
    const spec = specOf(status.name);
    if (spec !== undefined && isRestartableInitContainer(spec)) fill(status, true);
    else {
      fill(status, false);
      // A regular init container is ready once it completed successfully.
      status.ready = status.state?.terminated?.exitCode === 0;
    }
  }
}

/** A regular container exists in the pod's current sandbox (kubecontainer.HasAnyActiveRegularContainerStarted). */
function hasActiveRegularContainer(pod: Pod, podStatus: RuntimePodStatus): boolean {
  const sandboxId = podStatus.sandboxStatuses[0]?.id;
  if (sandboxId === undefined) return false;
  const names = new Set(pod.spec.containers.map((c) => c.name));
  return podStatus.containerStatuses.some((c) => names.has(c.name) && c.sandboxId === sandboxId);
}

function isIPv6(ip: string): boolean {
  return ipFamily(ip) === 6;
}

/**
 * Pod IPs in the node's family preference, at most one per family; a hostNetwork pod has the
 * node's IPs.
 */
function podIPsFor(pod: Pod, ips: string[], hostIPs: string[]): string[] {
  const primaryV6 = hostIPs.length > 0 && isIPv6(hostIPs[0]!);
  const primary = ips.find((ip) => isIPv6(ip) === primaryV6);
  const secondary = ips.find((ip) => isIPv6(ip) !== primaryV6);
  const sorted = [primary, secondary].filter((ip): ip is string => ip !== undefined);
  if (pod.spec.hostNetwork !== true) return sorted;
  if (sorted.length === 0) return hostIPs;
  const second = hostIPs[1];
  if (sorted.length === 1 && second !== undefined && isIPv6(second) !== isIPv6(sorted[0]!)) sorted.push(second);
  return sorted;
}
