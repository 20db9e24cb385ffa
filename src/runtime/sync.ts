/**
 * SyncPod (kuberuntime_manager.go): carry out computePodActions. Kill the pod (then purge its init
 * containers when a new sandbox follows) or the containers to kill; prune old init containers;
 * RunPodSandbox when needed and read its IPs; then start ephemeral containers, the init
 * containers in order (a failing regular one stops the sync), and the regular containers. Every
 * start first checks the crash-loop backoff.
 */
import { mkdirSync } from "node:fs";
import { podRef, type Container, type Pod } from "../api/index.ts";
import type { Backoff } from "../lib/index.ts";
import type { PodSandboxConfig } from "../cri/index.ts";
import { EventReason, podReference } from "../events/index.ts";
import type { Metrics } from "../metrics/index.ts";
import {
  isHostNetwork,
  isRestartableInitContainer,
  runningPodFromStatus,
  sandboxIPs,
  type ContainerKind,
  type RuntimePodStatus,
} from "../container/index.ts";
import { computePodActions } from "./actions.ts";
import type { ProbeResultsView } from "./actions-types.ts";
import { doBackOff, formatPod } from "./crashloop.ts";
import { eventErrorText, recordContainerEvent } from "./events.ts";
import { pruneInitContainersBeforeStart, purgeInitContainers, type GcDeps } from "./gc.ts";
import { killContainer, killPodWithSyncResult } from "./kill.ts";
import { Reason, SyncError } from "./errors.ts";
import { SyncRecorder, type PodSyncResult } from "./result.ts";
import { generatePodSandboxConfig, type SandboxConfigOptions } from "./sandbox-config.ts";
import { doPodResizeAction, ResizeError, type MemoryUsage, type PodCgroupResizer } from "./resize.ts";
import { startContainer, type StartDeps, type StartTarget } from "./start.ts";
import { StartTimeline } from "./timeline.ts";

export interface SyncDeps extends StartDeps, GcDeps {
  metrics: Metrics;
  crashLoopBackoff: Backoff;
  probes: ProbeResultsView;
  sandbox: SandboxConfigOptions;
  /** The CRI runtime handler of the pod's RuntimeClass ("" = the runtime's default); throws when it cannot be found. */
  runtimeHandler(pod: Pod): string;
  /** The pod start this sync continues (one not logged yet), if any. */
  pendingStart(uid: string): StartTimeline | undefined;
  /** Called with the timeline of a sync that created a sandbox or started containers. */
  recordTimeline(uid: string, timeline: StartTimeline): void;
  /** A container's memory usage, for refusing a memory limit below it (resize). */
  memoryUsage: MemoryUsage;
  /** The pod cgroup a resize changes; undefined when bunlet runs none. */
  podCgroup?: PodCgroupResizer;
  /** The pod startup latency tracker's init container recorder (podInitContainerTimeRecorder). */
  initContainerTimes?: InitContainerTimes;
}

/** What the startup SLI subtracts: the time the pod's (non-sidecar) init containers ran. */
export interface InitContainerTimes {
  recordInitContainerStarted(uid: string, at: number): void;
  recordInitContainerFinished(uid: string, finishedAt: number): void;
}

export async function syncPod(deps: SyncDeps, pod: Pod, podStatus: RuntimePodStatus, signal?: AbortSignal): Promise<PodSyncResult> {
  const result = await syncPodSteps(deps, pod, podStatus, signal);
  // A pod with its own user namespace that got a sandbox this sync counts as an error when
  // anything in the sync failed (the kubelet's deferred check over all of SyncPod's results).
  const sandboxStep = result.steps.some((s) => s.action === "CreatePodSandbox");
  if (pod.spec.hostUsers === false && sandboxStep && (result.error || result.steps.some((s) => s.error))) deps.metrics.startedUserNamespacedPodsErrors.inc();
  return result;
}

async function syncPodSteps(deps: SyncDeps, pod: Pod, podStatus: RuntimePodStatus, signal?: AbortSignal): Promise<PodSyncResult> {
  const { clock, log } = deps;
  const began = clock.now();
  const rec = new SyncRecorder(() => clock.now());
  const fields = { pod: podRef(pod) };
  const uid = pod.metadata.uid ?? "";
  const changes = computePodActions(pod, podStatus, deps.probes, deps.actuated && ((u, name) => deps.actuated!.get(u, name)));
  log.debug("computePodActions got for pod", { ...fields, podActions: changes }, 3);
  if (changes.createSandbox && changes.sandboxId) {
    log.info("Pod sandbox changed, it will be killed and re-created", fields);
    deps.recorder.event(podReference(pod), "Normal", EventReason.SandboxChanged, "Pod sandbox changed, it will be killed and re-created.");
  }

  if (changes.killPod) {
    const killed = await killPodWithSyncResult(deps, pod, runningPodFromStatus(podStatus), undefined, signal);
    rec.merge(killed);
    if (killed.error) return rec.result();
    if (changes.createSandbox) await purgeInitContainers(deps, pod, podStatus, { signal });
  } else {
    for (const k of changes.containersToKill) {
      try {
        await rec.step("KillContainer", k.name, () =>
          killContainer(deps, pod, k.id, k.name, k.message, k.reason, { signal }),
        );
      } catch (err) {
        log.error("killContainer for pod failed; the pod worker retries", { ...fields, containerName: k.name, containerID: k.id, err });
        return rec.result();
      }
    }
  }
  await pruneInitContainersBeforeStart(deps, pod, podStatus, { signal });

  const pending = changes.createSandbox ? undefined : deps.pendingStart(uid);
  const timeline = pending ?? new StartTimeline(changes.createSandbox, began);
  let podIPs = podStatus.ips;
  let sandboxId = changes.sandboxId;
  if (changes.createSandbox) {
    deps.metrics.startedPods.inc();
    if (pod.spec.hostUsers === false) deps.metrics.startedUserNamespacedPods.inc();
    const started = clock.now();
    try {
      sandboxId = await rec.step("CreatePodSandbox", formatPod(pod), async () => {
        const config = generatePodSandboxConfig(pod, changes.attempt, deps.sandbox);
        mkdirSync(config.logDirectory, { recursive: true, mode: 0o755 });
        const runtimeHandler = deps.runtimeHandler(pod);
        if (runtimeHandler) log.debug("Running pod with runtime handler", { ...fields, runtimeHandler }, 2);
        // Timed and counted per RuntimeClass handler, failures included (instrumented_services.go).
        const t0 = clock.now();
        try {
          return (await deps.cri.runtime.runPodSandbox({ config, runtimeHandler }, { signal })).podSandboxId;
        } catch (err) {
          deps.metrics.runPodSandboxErrors.inc({ runtime_handler: runtimeHandler });
          throw err;
        } finally {
          deps.metrics.runPodSandboxDuration.observe({ runtime_handler: runtimeHandler }, (clock.now() - t0) / 1000);
        }
      });
    } catch (err) {
      deps.metrics.startedPodsErrors.inc();
      log.error("Failed to create pod sandbox; the pod worker retries with backoff", { ...fields, err });
      // A sync cancelled because the pod is being killed is no failure worth an event (the kubelet's IsPodTerminationRequested check).
      if (!signal?.aborted) deps.recorder.event(podReference(pod), "Warning", EventReason.FailedCreatePodSandBox, `Failed to create pod sandbox: ${eventErrorText(err)}`);
      return rec.result();
    }
    timeline.add("sandbox", clock.now() - started);
    try {
      const res = await deps.cri.runtime.podSandboxStatus({ podSandboxId: sandboxId }, { signal });
      if (!res.status) throw new Error("pod sandbox status is nil");
      if (!isHostNetwork(pod)) podIPs = sandboxIPs(res.status);
    } catch (err) {
      log.error("Failed to get pod sandbox status; skipping pod", { ...fields, podSandboxID: sandboxId, err });
      rec.fail(err as Error);
      return rec.result();
    }
  }
  // Resize the pod and its running containers before anything starts (SyncPod step 6).
  const updates = changes.containersToUpdate;
  if (deps.actuated && ((updates && (updates.memory.length > 0 || updates.cpu.length > 0)) || changes.updatePodResources)) {
    try {
      await rec.step("ResizePodInPlace", formatPod(pod), async () => {
        try {
          await doPodResizeAction({ ...deps, actuated: deps.actuated!, podCgroup: deps.podCgroup }, deps.memoryUsage, pod, podStatus, changes, signal);
        } catch (err) {
          throw new SyncError(Reason.ResizePodInPlaceError, err instanceof ResizeError ? err.message : (err as Error).message);
        }
      });
    } catch (err) {
      // Recorded in the step: the containers still start, and the pod worker retries the resize.
      log.error("Allocated pod resize could not be applied; the next sync retries", { ...fields, err });
    }
  }
  const toStart = changes.ephemeralContainersToStart.length + changes.initContainersToStart.length + changes.containersToStart.length;
  if (toStart === 0) return finish();
  // CreateContainer and PullImage carry the sandbox's config, generated again as upstream does,
  // and only when a container is to start: a sync with nothing to do reports no step at all.
  let sandboxConfig: PodSandboxConfig;
  try {
    sandboxConfig = generatePodSandboxConfig(pod, changes.attempt, deps.sandbox);
  } catch (err) {
    log.error("GeneratePodSandboxConfig for pod failed; the pod worker retries", { ...fields, err });
    rec.fail(new SyncError(Reason.ConfigPodSandboxError, `GeneratePodSandboxConfig for pod "${formatPod(pod)}" failed: ${(err as Error).message}`));
    return finish();
  }

  const target: StartTarget = { pod, podStatus, sandboxId, sandboxConfig, podIPs, timeline, runtimeHandler: deps.runtimeHandler(pod) };
  const start = (container: Container, kind: ContainerKind) =>
    rec.step(kind === "init" ? "InitContainer" : "StartContainer", container.name, async () => {
      const backoff = doBackOff(deps.crashLoopBackoff, pod, container, podStatus);
      if (backoff.inBackoff) {
        log.info("Back-off restarting failed container", { ...fields, containerName: container.name, message: backoff.message });
        recordContainerEvent(deps, pod, container, "Warning", EventReason.BackOffStartContainer, `Back-off restarting failed container ${container.name} in pod ${formatPod(pod)}`);
        throw new SyncError(Reason.CrashLoopBackOff, backoff.message, backoff.expiresAt);
      }
      const label = kind === "init" ? "init_container" : kind === "ephemeral" ? "ephemeral_container" : "container";
      deps.metrics.startedContainers.inc({ container_type: label });
      try {
        await startContainer(deps, target, container, kind, signal);
        if (kind === "init" && !isRestartableInitContainer(container)) deps.initContainerTimes?.recordInitContainerStarted(uid, clock.now());
      } catch (err) {
        if (signal?.aborted) {
          // The pod began terminating while this container started, and the pod worker cancelled
          // the sync (the kubelet cancels its context on a kill). No runtime failure: the
          // container may be running already, and the terminating sync that follows stops it.
          log.debug("Container start cancelled: the pod sync was cancelled", { ...fields, containerName: container.name, err }, 2);
          throw err;
        }
        const reason = err instanceof SyncError ? err.reason : Reason.RunContainerError;
        deps.metrics.startedContainersErrors.inc({ container_type: label, code: reason });
        const level = reason === Reason.ImagePullBackOff ? "info" : "warn";
        log[level]("Container start failed in pod; the pod worker retries", { ...fields, containerName: container.name, reason, err });
        throw err;
      }
    });

  // A failed start is recorded in its step (and logged); as upstream, the others still start.
  for (const idx of changes.ephemeralContainersToStart) {
    await start(pod.spec.ephemeralContainers![idx], "ephemeral").catch(() => undefined);
  }
  for (const idx of changes.initContainersToStart) {
    const container = pod.spec.initContainers![idx];
    try {
      await start(container, "init");
    } catch {
      // A failing sidecar does not block the rest; a failing init container does.
      if (!isRestartableInitContainer(container)) return finish();
    }
  }
  // The init containers that have finished end their run time (after the starts, as the kubelet's SyncPod).
  for (const cs of podStatus.containerStatuses) {
    const init = pod.spec.initContainers?.find((c) => c.name === cs.name);
    if (init && !isRestartableInitContainer(init) && cs.state === "exited" && cs.finishedAt > 0) deps.initContainerTimes?.recordInitContainerFinished(uid, cs.finishedAt);
  }
  for (const idx of changes.containersToStart) {
    // A cancelled sync starts nothing more: the pod is terminating.
    if (signal?.aborted) break;
    await start(pod.spec.containers[idx], "container").catch(() => undefined);
  }
  return finish();

  function finish(): PodSyncResult {
    const result = rec.result();
    if (timeline.podStart || !timeline.empty) {
      deps.recordTimeline(uid, timeline);
      if (!result.error) timeline.report(log, deps.metrics, podRef(pod), clock.now());
    }
    return result;
  }
}
