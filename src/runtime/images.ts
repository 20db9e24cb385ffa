/**
 * EnsureImageExists (pkg/kubelet/images/image_manager.go): resolve the image through ImageStatus,
 * pull it per pull policy, one pull at a time (serializeImagePulls), with a keyed backoff per
 * `<podUID>_<image>` (10 s doubling to 300 s). Failures carry the kubelet's waiting reasons. A
 * pull sends the pod's pull-secret credentials for the image's registry (pull-secrets.ts), each
 * in turn until one pulls, as kuberuntime's PullImage does. An image volume's image (KEP-4639) is
 * ensured the same way with the volume's pull policy, its events about the pod (getImageVolumes).
 */
import { defaultImagePullPolicy, ImageNameError, parseImageName, podRef, type Container, type Pod, type Volume } from "../api/index.ts";
import { isCriError, type CriClient, type PodSandboxConfig } from "../cri/index.ts";
import { containerReference, EventReason, podReference, type EventRecorder, type EventType } from "../events/index.ts";
import { Backoff, formatGoDuration, type Clock, type Logger } from "../lib/index.ts";
import { Reason, SyncError } from "./errors.ts";
import { PullSecretError, type RegistryAuth } from "./keyring.ts";
import { pullCredentialsFor, type PullSecretGetter } from "./pull-secrets.ts";

const IMAGE_BACKOFF_INITIAL_MS = 10_000;
const IMAGE_BACKOFF_MAX_MS = 300_000;

/** Adds ":latest" when the image has neither tag nor digest (applyDefaultImageTag); throws ImageNameError. */
export function applyDefaultImageTag(image: string): string {
  const p = parseImageName(image);
  return p.digest === "" && p.tag === "latest" && !image.endsWith(":latest") ? `${image}:latest` : image;
}

type PullPolicy = "Always" | "IfNotPresent" | "Never";

/** The container's pull policy, or the API default when a pod was not defaulted. */
export function effectivePullPolicy(container: Container): PullPolicy {
  return (container.imagePullPolicy as PullPolicy | undefined) || defaultImagePullPolicy(container.image ?? "");
}

/** An image volume's pull policy, defaulted as the apiserver does for a container's. */
function volumePullPolicy(volume: Volume): PullPolicy {
  return volume.image?.pullPolicy || defaultImagePullPolicy(volume.image?.reference ?? "");
}

/** One image to ensure: the reference as the user wrote it, its policy, and what its events are about. */
interface ImageRequest {
  image: string;
  pullPolicy: PullPolicy;
  eventRef: ReturnType<typeof podReference> | undefined;
}

export interface EnsuredImage {
  imageRef: string;
  /** Time spent pulling (0 when the image was present). */
  pullMs: number;
}

export interface ImageManager {
  ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<EnsuredImage>;
  /** The image of an image volume (`volume.image`), pulled per the volume's pull policy. */
  ensureVolumeImage(pod: Pod, volume: Volume, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<EnsuredImage>;
  /** Drops the pull backoff of a pod's images. */
  forgetPod(uid: string): void;
  /** Forgets expired backoff entries. */
  gc(): void;
}

/** utilerrors.NewAggregate's text: one message as it is, several (duplicates once) in brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

export interface ImageManagerDeps {
  cri: CriClient;
  clock: Clock;
  log: Logger;
  recorder: EventRecorder;
  /** Reads the pod's pull secrets; absent when standalone (a pod naming some pulls anonymously). */
  pullSecret?: PullSecretGetter;
  /** Told when a pod's pull starts and ends, and when its image turns out present (the startup SLI leaves pulls out). */
  pullTimes?: ImagePullTimes;
  /** kubelet_image_manager_ensure_image_requests_total. */
  metrics?: { imageManagerEnsureImageRequests: { inc(labels: { pull_policy: string; present_locally: string; pull_required: string }): void } };
}

/** The pod startup latency tracker's pull recorder (podPullingTimeRecorder). */
export interface ImagePullTimes {
  recordImageStartedPulling(uid: string): void;
  recordImageFinishedPulling(uid: string): void;
}

export function createImageManager(deps: ImageManagerDeps): ImageManager {
  const { cri, clock, log } = deps;
  const backoff = new Backoff(clock, { initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS });
  // serializeImagePulls: one pull at a time on the node.
  let pullQueue: Promise<unknown> = Promise.resolve();

  /** The pulled image's size for the Pulled event; 0 when the runtime does not say. */
  async function imageSize(imageRef: string, signal?: AbortSignal): Promise<string> {
    try {
      const res = await cri.image.imageStatus({ image: { image: imageRef } }, { signal });
      return String(res.image?.size ?? 0);
    } catch (err) {
      log.debug("Could not read the pulled image's size for its event; it says 0", { image: imageRef, err }, 4);
      return "0";
    }
  }

  /** PullImage with each credential in turn until one pulls; without any, anonymously. */
  async function pullWith(image: string, annotations: Record<string, string>, sandboxConfig: PodSandboxConfig, credentials: RegistryAuth[], signal?: AbortSignal): Promise<string> {
    if (credentials.length === 0) return (await cri.image.pullImage({ image: { image, annotations }, sandboxConfig }, { signal })).imageRef;
    const failures: string[] = [];
    for (const { username, password } of credentials) {
      try {
        return (await cri.image.pullImage({ image: { image, annotations }, auth: { username, password }, sandboxConfig }, { signal })).imageRef;
      } catch (err) {
        if (signal?.aborted) throw err;
        failures.push(isCriError(err) ? err.detail : (err as Error).message);
      }
    }
    throw new Error(aggregate(failures));
  }

  async function imageRefOf(image: string, annotations: Record<string, string>, signal?: AbortSignal): Promise<string> {
    const res = await cri.image.imageStatus({ image: { image, annotations } }, { signal });
    return res.image?.id ?? "";
  }

  /** EnsureImageExists, telling `facts` whether the image was present and a pull was required. */
  async function ensure(pod: Pod, request: ImageRequest, sandboxConfig: PodSandboxConfig, facts: { present?: boolean; pullRequired?: boolean }, signal?: AbortSignal): Promise<EnsuredImage> {
    const requested = request.image;
    const event = (type: EventType, reason: string, message: string) => {
      if (request.eventRef) deps.recorder.event(request.eventRef, type, reason, message);
    };
    let image: string;
    try {
      image = applyDefaultImageTag(requested);
    } catch (err) {
      if (!(err instanceof ImageNameError)) throw err;
      const message = `Failed to apply default image tag ${JSON.stringify(requested)}: ${err.message}`;
      event("Warning", EventReason.FailedToInspectImage, message);
      throw new SyncError(Reason.InvalidImageName, message);
    }
    const annotations = { ...(pod.metadata.annotations ?? {}) };
    let present: string;
    try {
      present = await imageRefOf(image, annotations, signal);
    } catch (err) {
      const message = `Failed to inspect image "${requested}": ${(err as Error).message}`;
      event("Warning", EventReason.FailedToInspectImage, message);
      throw new SyncError(Reason.ImageInspectError, message);
    }
    const policy = request.pullPolicy;
    // Always asks the runtime nothing in the kubelet: whether the image is there stays unknown.
    if (policy !== "Always") facts.present = present !== "";
    if (policy === "Never" || (policy === "IfNotPresent" && present)) {
      if (present) {
        facts.pullRequired = false;
        event("Normal", EventReason.PulledImage, `Container image "${requested}" already present on machine and can be accessed by the pod`);
        // Another pod's pull may have brought it: a pull this pod had open ends here.
        deps.pullTimes?.recordImageFinishedPulling(pod.metadata.uid ?? "");
        return { imageRef: present, pullMs: 0 };
      }
      const message = `Container image "${requested}" is not present with pull policy of Never`;
      event("Warning", EventReason.ErrImageNeverPullPolicy, message);
      throw new SyncError(Reason.ErrImageNeverPull, message);
    }

    facts.pullRequired = true;
    const key = `${pod.metadata.uid}_${requested}`;
    if (backoff.isInBackOffSinceUpdate(key)) {
      const message = `Back-off pulling image "${requested}"`;
      event("Normal", EventReason.BackOffPullImage, message);
      throw new SyncError(Reason.ImagePullBackOff, message, backoff.expiresAt(key));
    }
    const fields = { pod: podRef(pod), image: requested };
    deps.pullTimes?.recordImageStartedPulling(pod.metadata.uid ?? "");
    log.info("Pulling image", fields);
    event("Normal", EventReason.PullingImage, `Pulling image "${requested}"`);
    let credentials: RegistryAuth[];
    let missingSecrets: string[];
    try {
      ({ credentials, missing: missingSecrets } = await pullCredentialsFor(pod, parseImageName(image).repository, deps.pullSecret, log, signal));
    } catch (err) {
      if (!(err instanceof PullSecretError)) throw err;
      event("Warning", EventReason.FailedToPullImage, `Failed to pull image "${requested}": ${err.message}`);
      throw new SyncError(Reason.ErrImagePull, err.message);
    }
    const queued = clock.now();
    const pull = pullQueue.then(async () => {
      const started = clock.now();
      const imageRef = await pullWith(image, annotations, sandboxConfig, credentials, signal);
      return { imageRef, pullMs: clock.now() - started, size: await imageSize(imageRef, signal) };
    });
    pullQueue = pull.catch(() => undefined);
    try {
      const { imageRef, pullMs, size } = await pull;
      const waitedMs = clock.now() - queued;
      deps.pullTimes?.recordImageFinishedPulling(pod.metadata.uid ?? "");
      log.info("Successfully pulled image", { ...fields, durationMs: pullMs, includingWaitingMs: waitedMs });
      event(
        "Normal",
        EventReason.PulledImage,
        `Successfully pulled image "${requested}" in ${formatGoDuration(pullMs)} (${formatGoDuration(waitedMs)} including waiting). Image size: ${size} bytes.`,
      );
      backoff.gc();
      return { imageRef, pullMs: clock.now() - queued };
    } catch (err) {
      backoff.next(key);
      const message = isCriError(err) ? err.detail : (err as Error).message;
      log.warn("Failed to pull image; bunlet backs off before the next attempt", { ...fields, err: message, backoffMs: backoff.get(key) });
      event("Warning", EventReason.FailedToPullImage, `Failed to pull image "${requested}": ${message}`);
      if (missingSecrets.length > 0) {
        deps.recorder.event(
          podReference(pod),
          "Warning",
          EventReason.FailedToRetrieveImagePullSecret,
          `Unable to retrieve some image pull secrets (${missingSecrets.join(", ")}); attempting to pull the image may not succeed.`,
        );
      }
      throw new SyncError(Reason.ErrImagePull, message);
    }
  }

  /** ensure, counted in kubelet_image_manager_ensure_image_requests_total. */
  async function ensureCounted(pod: Pod, request: ImageRequest, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<EnsuredImage> {
    // What the request found, for the metric: unknown until known, as the kubelet's nil pointers.
    const facts: { present?: boolean; pullRequired?: boolean } = {};
    try {
      return await ensure(pod, request, sandboxConfig, facts, signal);
    } finally {
      const known = (b: boolean | undefined) => (b === undefined ? "unknown" : String(b));
      deps.metrics?.imageManagerEnsureImageRequests.inc({
        pull_policy: request.pullPolicy.toLowerCase(),
        present_locally: known(facts.present),
        pull_required: known(facts.pullRequired),
      });
    }
  }

  return {
    ensureImageExists(pod, container, sandboxConfig, signal) {
      // The image manager's events are about the container (its fieldPath), as the kubelet's.
      const request = { image: container.image ?? "", pullPolicy: effectivePullPolicy(container), eventRef: containerReference(pod, container) };
      return ensureCounted(pod, request, sandboxConfig, signal);
    },
    ensureVolumeImage(pod, volume, sandboxConfig, signal) {
      // getImageVolumes passes the pod's reference: these events name no container.
      const request = { image: volume.image?.reference ?? "", pullPolicy: volumePullPolicy(volume), eventRef: podReference(pod) };
      return ensureCounted(pod, request, sandboxConfig, signal);
    },
    forgetPod(uid) {
      backoff.resetPrefix(`${uid}_`);
    },
    gc() {
      backoff.gc();
    },
  };
}
