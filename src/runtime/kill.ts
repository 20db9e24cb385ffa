/**
 * Stopping containers and pods (killContainer, killContainersWithSyncResult,
 * killPodWithSyncResult): the preStop hook within the grace period, then StopContainer with what is
 * left of it (at least 2 s); all containers of a pod in parallel, then StopPodSandbox. A pod
 * without a spec (an orphan from a previous run) is rebuilt from the container's annotations.
 */
import { podRef, DefaultTerminationGracePeriodSeconds, type Container, type Pod } from "../api/index.ts";
import { isNotFound, type CriClient } from "../cri/index.ts";
import { EventReason, type EventRecorder } from "../events/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { runHandler } from "../hooks/index.ts";
import {
  containerInfoFromAnnotations,
  containerInfoFromLabels,
  hasRestartableInitContainer,
  runtimePodRef,
  type RuntimePod,
} from "../container/index.ts";
import type { KillReason } from "./actions-types.ts";
import { formatPod } from "./crashloop.ts";
import { Reason, SyncError } from "./errors.ts";
import { SyncRecorder, type PodSyncResult } from "./result.ts";
import { recordContainerEvent } from "./events.ts";
import { TerminationOrdering } from "./termination-order.ts";

const MINIMUM_GRACE_PERIOD_SECONDS = 2;

export interface KillDeps {
  cri: CriClient;
  clock: Clock;
  log: Logger;
  recorder: EventRecorder;
  /** The pod's IPs, for httpGet preStop hooks without a host (read lazily, only when needed). */
  podIPs(uid: string, name: string, namespace: string, signal: AbortSignal): Promise<string[]>;
  metrics: Pick<Metrics, "sleepActionTerminatedEarly">;
}

export interface KillOptions {
  gracePeriodOverride?: number;
  ordering?: TerminationOrdering;
  signal?: AbortSignal;
}

function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])];
}

/** setTerminationGracePeriod: the deletion grace, else the spec's (or a probe's, for probe kills). */
export function terminationGracePeriod(pod: Pod, container: Container, reason: KillReason): number {
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) return pod.metadata.deletionGracePeriodSeconds;
  const probe = reason === "StartupProbe" ? container.startupProbe : reason === "LivenessProbe" ? container.livenessProbe : undefined;
  if (probe?.terminationGracePeriodSeconds !== undefined) return probe.terminationGracePeriodSeconds;
  return pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds;
}

/** The pod and container as far as the container's labels and annotations remember them. */
async function restoreSpecs(cri: CriClient, containerId: string, signal?: AbortSignal): Promise<{ pod: Pod; container: Container }> {
  const res = await cri.runtime.containerStatus({ containerId }, { signal });
  const status = res.status;
  if (!status) throw new Error(`CRI ContainerStatus returned no status for container ${containerId}`);
  const l = containerInfoFromLabels(status.labels);
  const a = containerInfoFromAnnotations(status.annotations);
  const pod: Pod = {
    metadata: { uid: l.podUid, name: l.podName, namespace: l.podNamespace, deletionGracePeriodSeconds: a.podDeletionGracePeriod },
    // Without the annotation the kubelet falls back to the 2 s minimum, not the API default.
    spec: { containers: [], terminationGracePeriodSeconds: a.podTerminationGracePeriod ?? MINIMUM_GRACE_PERIOD_SECONDS },
  };
  const container: Container = {
    name: l.containerName,
    ports: a.containerPorts,
    terminationMessagePath: a.terminationMessagePath,
    lifecycle: a.preStopHandler ? { preStop: a.preStopHandler } : undefined,
  };
  return { pod, container };
}

export async function killContainer(
  deps: KillDeps,
  specPod: Pod | undefined,
  containerId: string,
  containerName: string,
  message: string,
  reason: KillReason,
  opts: KillOptions = {},
): Promise<void> {
  const { cri, clock, log } = deps;
  let pod: Pod;
  let container: Container;
  if (specPod) {
    const found = allContainers(specPod).find((c) => c.name === containerName);
    if (!found) {
      throw new Error(
        `failed to get containerSpec "${containerName}" (id="${containerId}") in pod "${formatPod(specPod)}" when killing container for reason "${message}"`,
      );
    }
    pod = specPod;
    container = found;
  } else {
    ({ pod, container } = await restoreSpecs(cri, containerId, opts.signal));
  }
  let grace = opts.gracePeriodOverride ?? terminationGracePeriod(pod, container, reason);
  const fields = { pod: podRef(pod), containerName, containerID: containerId };
  // The kubelet's "Killing" event; the kill reason only chooses the grace period.
  const killMessage = message || `Stopping container ${container.name}`;
  log.info(killMessage, { ...fields, reason: "Killing", gracePeriod: grace });
  recordContainerEvent(deps, pod, container, "Normal", EventReason.KillingContainer, killMessage);

  const preStop = container.lifecycle?.preStop;
  if (preStop && grace > 0) {
    const started = clock.now();
    const deadline = new AbortController();
    const timer = clock.setTimer(grace * 1000, () => deadline.abort(new Error("preStop hook did not finish within the grace period")));
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
    try {
      const podIP = preStop.httpGet && !preStop.httpGet.host
        ? ((await deps.podIPs(pod.metadata.uid ?? "", pod.metadata.name ?? "", pod.metadata.namespace ?? "", signal))[0] ?? "")
        : "";
      const onSleepTerminatedEarly = () => deps.metrics.sleepActionTerminatedEarly.inc();
      await runHandler(preStop, { cri, containerId, podIP, signal, timeoutMs: grace * 1000, clock, ports: container.ports, onSleepTerminatedEarly });
    } catch (err) {
      log.warn("PreStop hook failed; stopping the container anyway", { ...fields, err });
      // The hook's output stays out of the event, as the kubelet keeps it: it may hold secrets.
      recordContainerEvent(deps, pod, container, "Warning", EventReason.FailedPreStopHook, "PreStopHook failed");
    } finally {
      timer.cancel();
    }
    grace -= Math.floor((clock.now() - started) / 1000);
  }
  if (opts.ordering && grace > 0) grace -= await opts.ordering.waitForTurn(containerName, grace, opts.signal);
  // Always leave a short window for a clean exit before SIGKILL.
  grace = Math.max(grace, MINIMUM_GRACE_PERIOD_SECONDS);
  try {
    await cri.runtime.stopContainer({ containerId, timeout: BigInt(grace) }, { signal: opts.signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  opts.ordering?.containerTerminated(containerName);
}

/**
 * Kills every running container of the pod in parallel, then stops all its sandboxes (they are
 * removed later by garbage collection).
 */
export async function killPodWithSyncResult(
  deps: KillDeps,
  pod: Pod | undefined,
  runningPod: RuntimePod,
  gracePeriodOverride: number | undefined,
  signal?: AbortSignal,
): Promise<PodSyncResult> {
  const rec = new SyncRecorder(() => deps.clock.now());
  const running = runningPod.containers.filter((c) => c.state === "running");
  const ordering = pod && hasRestartableInitContainer(pod)
    ? new TerminationOrdering(pod, running.map((c) => c.name), deps.clock)
    : undefined;
  await Promise.all(
    running.map((c) =>
      rec
        .step("KillContainer", c.name, () => killContainer(deps, pod, c.id, c.name, "", "Unknown", { gracePeriodOverride, ordering, signal }))
        .catch((err) => {
          deps.log.error("Failed to kill container; the pod worker retries", {
            pod: runtimePodRef(runningPod),
            containerName: c.name,
            containerID: c.id,
            err,
          });
        }),
    ),
  );
  await rec
    .step("KillPodSandbox", runningPod.uid, async () => {
      let failure: Error | undefined;
      for (const s of runningPod.sandboxes) {
        try {
          await deps.cri.runtime.stopPodSandbox({ podSandboxId: s.id }, { signal });
        } catch (err) {
          if (isNotFound(err)) continue;
          failure = err as Error;
          deps.log.error("Failed to stop sandbox; the pod worker retries", { pod: runtimePodRef(runningPod), podSandboxID: s.id, err });
        }
      }
      if (failure) throw new SyncError(Reason.KillPodSandboxError, failure.message);
    })
    // The step recorded the failure and each one was logged above; rec.result() reports it.
    .catch(() => undefined);
  return rec.result();
}
