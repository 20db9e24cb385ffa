/**
 * startContainer (kuberuntime_container.go): ensure the image, pick the restart count, build the
 * config, CreateContainer, StartContainer, link the legacy log path, run the postStart hook (a
 * failing hook kills the container). Each failure is a SyncError with the kubelet's reason.
 */
import { mkdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { podRef, type Container, type Pod } from "../api/index.ts";
import { isCriError, type PodSandboxConfig } from "../cri/index.ts";
import { EventReason } from "../events/index.ts";
import { runHandler } from "../hooks/index.ts";
import { findContainerStatus, type ContainerKind, type RuntimePodStatus } from "../container/index.ts";
import { generateContainerConfig } from "./container-config.ts";
import type { EnvContext } from "./env.ts";
import type { ImageManager } from "./images.ts";
import { containerImageVolumes, pullImageVolumes, type ImageSpecInit, type ImageVolumePulls } from "./image-volumes.ts";
import { killContainer, type KillDeps } from "./kill.ts";
import { recordContainerEvent } from "./events.ts";
import { containerLogsDirectory, legacyLogSymlink, restartCountFromLogDir } from "./logs.ts";
import { Reason, SyncError } from "./errors.ts";
import type { StartTimeline } from "./timeline.ts";
import type { Subpather } from "../subpath/index.ts";
import type { ActuatedStore } from "./resize.ts";
import type { Metrics } from "../metrics/index.ts";

export interface StartDeps extends KillDeps {
  images: ImageManager;
  podLogsDir: string;
  containerLogsDir: string;
  podsDir: string;
  seccompRoot: string;
  cgroupV2: boolean;
  randomHex: () => string;
  /** Node facts for the downward API and the API objects env reads; podIPs are filled per pod. */
  env: Omit<EnvContext, "podIPs">;
  /** --cluster-domain (managed /etc/hosts). */
  clusterDomain: string;
  /** subPath mounts (src/subpath). */
  subpather: Subpather;
  /** The actuated resources record (in-place resize); a created container is recorded with its resources. */
  actuated?: ActuatedStore;
  metrics: Pick<Metrics, "sleepActionTerminatedEarly" | "imageVolumeRequested" | "imageVolumeMountedSucceed" | "imageVolumeMountedErrors">;
}

export interface StartTarget {
  pod: Pod;
  podStatus: RuntimePodStatus;
  sandboxId: string;
  sandboxConfig: PodSandboxConfig;
  podIPs: string[];
  timeline: StartTimeline;
  /** The pod's RuntimeClass handler, for the image volumes' image specs. */
  runtimeHandler: string;
  /** The pod's image volumes, pulled at the first container start of this sync (getImageVolumes). */
  imageVolumePulls?: Promise<ImageVolumePulls>;
}

function criDetail(err: unknown): string {
  return isCriError(err) ? err.detail : (err as Error).message;
}

export async function startContainer(deps: StartDeps, t: StartTarget, container: Container, kind: ContainerKind, signal?: AbortSignal): Promise<void> {
  const { pod } = t;
  // The pod's image volumes come first (the kubelet pulls them before any container starts); a
  // container one of whose image volumes failed to pull is not started, its image not ensured.
  let imageVolumes: Map<string, ImageSpecInit> | undefined;
  if (pod.spec.volumes?.some((v) => v.image)) {
    t.imageVolumePulls ??= pullImageVolumes(deps.images, pod, t.sandboxConfig, t.runtimeHandler, signal);
    imageVolumes = containerImageVolumes(deps, pod, container, await t.imageVolumePulls);
  }
  let ensured;
  try {
    ensured = await deps.images.ensureImageExists(pod, container, t.sandboxConfig, signal);
  } catch (err) {
    // The image errors name only their reason (ErrImagePull, ImagePullBackOff, ...) in this event.
    if (err instanceof SyncError) recordContainerEvent(deps, pod, container, "Warning", EventReason.FailedToCreateContainer, `Error: ${err.reason}`);
    throw err;
  }
  const imageRef = ensured.imageRef;
  t.timeline.add("pull", ensured.pullMs);

  try {
    await createAndStart(deps, t, container, kind, imageRef, imageVolumes, signal);
  } catch (err) {
    countImageVolumes(deps, imageVolumes, err);
    throw err;
  }
  countImageVolumes(deps, imageVolumes, undefined);
}

/** incrementImageVolumeMetrics: each image volume given to the runtime, mounted unless CreateContainer said it was not. */
function countImageVolumes(deps: StartDeps, imageVolumes: Map<string, ImageSpecInit> | undefined, err: unknown): void {
  if (!imageVolumes || imageVolumes.size === 0) return;
  deps.metrics.imageVolumeRequested.inc(imageVolumes.size);
  const failed = err instanceof SyncError && err.reason === Reason.CreateContainerError && err.message.startsWith("ImageVolumeMountFailed");
  (failed ? deps.metrics.imageVolumeMountedErrors : deps.metrics.imageVolumeMountedSucceed).inc(imageVolumes.size);
}

/** The container's config, CreateContainer, StartContainer, its legacy log link and its postStart hook. */
async function createAndStart(
  deps: StartDeps,
  t: StartTarget,
  container: Container,
  kind: ContainerKind,
  imageRef: string,
  imageVolumes: ReadonlyMap<string, ImageSpecInit> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const { cri, clock, log } = deps;
  const { pod } = t;
  const fields = { pod: podRef(pod), containerName: container.name };
  // Every failure below is also the kubelet's Warning "Failed" event, "Error: <what failed>".
  const failed = (err: SyncError): SyncError => {
    recordContainerEvent(deps, pod, container, "Warning", EventReason.FailedToCreateContainer, `Error: ${err.message}`);
    return err;
  };

  // The runtime keeps the count; when it lost its state (a reboot), the log files still tell.
  const previous = findContainerStatus(t.podStatus, container.name);
  const { namespace = "", name = "", uid = "" } = pod.metadata;
  const restartCount = previous
    ? previous.restartCount + 1
    : restartCountFromLogDir(containerLogsDirectory(deps.podLogsDir, namespace, name, uid, container.name));

  let config;
  try {
    const image = await cri.image.imageStatus({ image: { image: container.image ?? "" } }, { signal });
    const imageUser = { uid: image.image?.uid?.value, username: image.image?.username ?? "" };
    // A host-network pod's IPs are the node's (its managed /etc/hosts is the node's file).
    const podIPs = t.podIPs.length === 0 && pod.spec.hostNetwork ? deps.env.hostIPs : t.podIPs;
    config = await generateContainerConfig(
      {
      pod,
      container,
      kind,
      restartCount,
      imageRef,
      imageUser,
        env: { ...deps.env, podIPs },
        podLogsDir: deps.podLogsDir,
        podsDir: deps.podsDir,
        seccompRoot: deps.seccompRoot,
        cgroupV2: deps.cgroupV2,
        randomHex: deps.randomHex,
        clusterDomain: deps.clusterDomain,
        subpather: deps.subpather,
        imageVolumes,
        userNamespace: t.sandboxConfig.linux?.securityContext?.namespaceOptions?.usernsOptions,
        log,
      },
      signal,
    );
  } catch (err) {
    throw failed(err instanceof SyncError ? err : new SyncError(Reason.CreateContainerConfigError, criDetail(err)));
  }

  let created = clock.now();
  let containerId: string;
  try {
    ({ containerId } = await cri.runtime.createContainer(
      { podSandboxId: t.sandboxId, config, sandboxConfig: t.sandboxConfig },
      { signal },
    ));
  } catch (err) {
    throw failed(new SyncError(Reason.CreateContainerError, criDetail(err)));
  }
  // The container runs with these resources: mark them actuated (setActuatedContainerResources).
  deps.actuated?.setContainer(pod.metadata.uid ?? "", container.name, container.resources ?? {});
  recordContainerEvent(deps, pod, container, "Normal", EventReason.CreatedContainer, `Created container: ${container.name}`);
  t.timeline.add(`${container.name}.create`, clock.now() - created);

  created = clock.now();
  try {
    await cri.runtime.startContainer({ containerId }, { signal });
  } catch (err) {
    throw failed(new SyncError(Reason.RunContainerError, criDetail(err)));
  }
  recordContainerEvent(deps, pod, container, "Normal", EventReason.StartedContainer, `Started container ${container.name}`);
  t.timeline.add(`${container.name}.start`, clock.now() - created);
  log.debug("Started container", { ...fields, containerID: containerId, restartCount }, 2);

  linkLegacyLog(deps, pod, container.name, containerId, join(t.sandboxConfig.logDirectory, config.logPath));

  const postStart = container.lifecycle?.postStart;
  if (postStart) {
    try {
      const onSleepTerminatedEarly = () => deps.metrics.sleepActionTerminatedEarly.inc();
      await runHandler(postStart, { cri, containerId, podIP: t.podIPs[0] ?? "", signal, clock, ports: container.ports, onSleepTerminatedEarly });
    } catch (err) {
      log.warn("PostStart hook failed; killing the container, it restarts per its restart policy", { ...fields, containerID: containerId, err });
      // The hook's output stays out of the event, as the kubelet keeps it: it may hold secrets.
      recordContainerEvent(deps, pod, container, "Warning", EventReason.FailedPostStartHook, "PostStartHook failed");
      await killContainer(deps, pod, containerId, container.name, "FailedPostStartHook", "FailedPostStartHook", { signal }).catch((killErr) => {
        log.error("Failed to kill container after its postStart hook failed", { ...fields, containerID: containerId, err: killErr });
      });
      throw new SyncError(Reason.PostStartHookError, (err as Error).message);
    }
  }
}

/** The `/var/log/containers` link; only when the log exists, so no dangling links are made. */
function linkLegacyLog(deps: StartDeps, pod: Pod, container: string, containerId: string, target: string): void {
  const link = legacyLogSymlink(deps.containerLogsDir, pod.metadata.name ?? "", pod.metadata.namespace ?? "", container, containerId);
  try {
    statSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
  }
  try {
    mkdirSync(deps.containerLogsDir, { recursive: true });
    rmSync(link, { force: true });
    symlinkSync(target, link);
  } catch (err) {
    deps.log.error("Failed to create legacy log symlink; logs stay readable under the pod log directory", { path: link, containerID: containerId, err });
  }
}
