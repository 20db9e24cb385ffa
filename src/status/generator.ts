/**
 * The node's status generator: generateAPIPodStatus bound to what it reads besides the pod and
 * its runtime status: the status last set for the pod, why a container is waiting (the runtime
 * manager's reason cache), the prober's readiness and startup results, the node's IPs and the
 * clock. The pod syncer calls it after every look at the runtime.
 */
import { podUID, type Pod, type PodStatus, type ResourceRequirements } from "../api/index.ts";
import type { RuntimePodStatus } from "../container/index.ts";
import type { Clock } from "../lib/index.ts";
import { generateAPIPodStatus, type PodSyncHandler, type ProbeResult } from "./generate.ts";
import type { StatusManager } from "./manager.ts";

export type StatusGenerator = (pod: Pod, podStatus: RuntimePodStatus, opts: { podIsTerminal: boolean }) => PodStatus;

export interface StatusGeneratorDeps {
  statusManager: Pick<StatusManager, "getPodStatus"> & Partial<Pick<StatusManager, "resizeConditions">>;
  /** A container's actuated resources (the runtime manager's record); given, statuses carry resources. */
  actuatedResources?(uid: string, containerName: string): ResourceRequirements | undefined;
  /** The last failed start of a pod's container (the runtime manager's getContainerWaitingReason). */
  waitingReason(uid: string, containerName: string): { reason: string; message: string } | undefined;
  /** The prober's results for one pod (the probe manager's statusLookup). */
  probeResult(uid: string): ProbeResult;
  /** The probe manager's ranBeforeRestart: a container bunlet found running when it started. */
  ranBeforeRestart?(startedAtMs: number): boolean;
  /** The node's IPs, primary first. */
  hostIPs: string[];
  /** Modules that may fail the pod (the active deadline). */
  podSyncHandlers?: readonly PodSyncHandler[];
  clock: Clock;
}

export function createStatusGenerator(deps: StatusGeneratorDeps): StatusGenerator {
  return (pod, podStatus, { podIsTerminal }) => {
    const uid = podUID(pod);
    // determinePodResizeStatus: a terminal pod has no resize to report.
    const resize = deps.statusManager.resizeConditions;
    if (podIsTerminal) {
      resize?.clearInProgress(uid);
      resize?.clearPending(uid);
    }
    return generateAPIPodStatus(pod, podStatus, {
      resizeConditions: podIsTerminal ? [] : resize?.get(uid),
      actuated: deps.actuatedResources && ((name) => deps.actuatedResources!(uid, name)),
      oldStatus: deps.statusManager.getPodStatus(uid),
      podIsTerminal,
      waitingReason: (name) => deps.waitingReason(uid, name),
      hostIPs: deps.hostIPs,
      now: deps.clock.now(),
      probeResult: deps.probeResult(uid),
      podSyncHandlers: deps.podSyncHandlers,
      ranBeforeRestart: deps.ranBeforeRestart,
    });
  };
}
