/**
 * Graceful node shutdown's decisions, pure (pkg/kubelet/nodeshutdown): which pods stop in which
 * group and with what grace period, the status they end with, and reading logind's
 * PrepareForShutdown signal from `gdbus monitor`'s output.
 */
import { isCriticalPodBasedOnPriority, type Pod, type PodStatus } from "../api/index.ts";

export const NODE_SHUTDOWN_REASON = "Terminated";
export const NODE_SHUTDOWN_MESSAGE = "Pod was terminated in response to imminent node shutdown.";

export interface ShutdownGroup {
  pods: Pod[];
  /** The group's grace period; each pod gets the smaller of it and its own. */
  gracePeriodSeconds: number;
}

/**
 * Without shutdownGracePeriodByPodPriority, the kubelet makes two groups: ordinary pods with
 * shutdownGracePeriod − shutdownGracePeriodCriticalPods, then critical pods (priority at least
 * system-critical) with shutdownGracePeriodCriticalPods. Empty groups are left out.
 */
export function shutdownGroups(pods: readonly Pod[], gracePeriodMs: number, criticalGracePeriodMs: number): ShutdownGroup[] {
  // By priority alone, as the kubelet groups them (groupByPriority): a static pod is not critical here.
  const critical = (p: Pod) => isCriticalPodBasedOnPriority(p.spec?.priority);
  const groups: ShutdownGroup[] = [
    { pods: pods.filter((p) => !critical(p)), gracePeriodSeconds: Math.floor((gracePeriodMs - criticalGracePeriodMs) / 1000) },
    { pods: pods.filter(critical), gracePeriodSeconds: Math.floor(criticalGracePeriodMs / 1000) },
  ];
  return groups.filter((g) => g.pods.length > 0);
}

/** The pod's own grace period when it is shorter than the group's. */
export function podGracePeriod(pod: Pod, groupGraceSeconds: number): number {
  const own = pod.spec?.terminationGracePeriodSeconds;
  return own !== undefined && own !== null && own <= groupGraceSeconds ? own : groupGraceSeconds;
}

/** The status a pod stopped for the shutdown ends with. */
export function shutdownStatus(status: PodStatus, nowIso: string): void {
  status.phase = "Failed";
  status.reason = NODE_SHUTDOWN_REASON;
  status.message = NODE_SHUTDOWN_MESSAGE;
  const conditions = (status.conditions ?? []).filter((c) => c.type !== "DisruptionTarget");
  conditions.push({ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message: NODE_SHUTDOWN_MESSAGE, lastTransitionTime: nowIso });
  status.conditions = conditions;
}

/**
 * A `gdbus monitor` line carrying logind's PrepareForShutdown signal:
 * "/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForShutdown (true,)".
 * true = the shutdown starts, false = it was cancelled; undefined for any other line.
 */
export function parsePrepareForShutdown(line: string): boolean | undefined {
  const m = /\borg\.freedesktop\.login1\.Manager\.PrepareForShutdown \((true|false),?\)/.exec(line);
  return m ? m[1] === "true" : undefined;
}

/** busctl's answer to get-property InhibitDelayMaxUSec ("t 5000000") in ms. */
export function parseInhibitDelayMaxMs(text: string): number | undefined {
  const m = /^t (\d+)\s*$/.exec(text.trim());
  return m ? Math.floor(Number(m[1]) / 1000) : undefined;
}
