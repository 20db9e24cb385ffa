/**
 * EnsureImageExists (pkg/kubelet/images/image_manager.go): resolve the image through ImageStatus,
 * pull it per pull policy, one pull at a time (serializeImagePulls), with a keyed backoff per
 * `<podUID>_<image>` (10 s doubling to 300 s). Failures carry the kubelet's waiting reasons.
 */
import { defaultImagePullPolicy, ImageNameError, parseImageName, podRef, type Container, type Pod } from "../api/index.ts";
import { isCriError, type CriClient, type PodSandboxConfig } from "../cri/index.ts";
import { Backoff, type Clock, type Logger } from "../lib/index.ts";
import { Reason, SyncError } from "./errors.ts";

const IMAGE_BACKOFF_INITIAL_MS = 10_000;
const IMAGE_BACKOFF_MAX_MS = 300_000;

/** Adds ":latest" when the image has neither tag nor digest (applyDefaultImageTag); throws ImageNameError. */
export function applyDefaultImageTag(image: string): string {
  const p = parseImageName(image);
  return p.digest === "" && p.tag === "latest" && !image.endsWith(":latest") ? `${image}:latest` : image;
}

/** The container's pull policy, or the API default when a pod was not defaulted. */
export function effectivePullPolicy(container: Container): "Always" | "IfNotPresent" | "Never" {
  return container.imagePullPolicy || defaultImagePullPolicy(container.image ?? "");
}

export interface EnsuredImage {
  imageRef: string;
  /** Time spent pulling (0 when the image was present). */
  pullMs: number;
}

export interface ImageManager {
  ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig, signal?: AbortSignal): Promise<EnsuredImage>;
  /** Drops the pull backoff of a pod's images. */
  forgetPod(uid: string): void;
  /** Forgets expired backoff entries. */
  gc(): void;
}

export function createImageManager(deps: { cri: CriClient; clock: Clock; log: Logger }): ImageManager {
  const { cri, clock, log } = deps;
  const backoff = new Backoff(clock, { initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS });
  // serializeImagePulls: one pull at a time on the node.
  let pullQueue: Promise<unknown> = Promise.resolve();

  async function imageRefOf(image: string, annotations: Record<string, string>, signal?: AbortSignal): Promise<string> {
    const res = await cri.image.imageStatus({ image: { image, annotations } }, { signal });
    return res.image?.id ?? "";
  }

  return {
    async ensureImageExists(pod, container, sandboxConfig, signal) {
      const requested = container.image ?? "";
      let image: string;
      try {
        image = applyDefaultImageTag(requested);
      } catch (err) {
        if (!(err instanceof ImageNameError)) throw err;
        throw new SyncError(Reason.InvalidImageName, `Failed to apply default image tag ${JSON.stringify(requested)}: ${err.message}`);
      }
      const annotations = { ...(pod.metadata.annotations ?? {}) };
      let present: string;
      try {
        present = await imageRefOf(image, annotations, signal);
      } catch (err) {
        throw new SyncError(Reason.ImageInspectError, `Failed to inspect image "${requested}": ${(err as Error).message}`);
      }
      const policy = effectivePullPolicy(container);
      if (policy === "Never" || (policy === "IfNotPresent" && present)) {
        if (present) return { imageRef: present, pullMs: 0 };
        throw new SyncError(Reason.ErrImageNeverPull, `Container image "${requested}" is not present with pull policy of Never`);
      }

      const key = `${pod.metadata.uid}_${requested}`;
      if (backoff.isInBackOffSinceUpdate(key)) {
        throw new SyncError(Reason.ImagePullBackOff, `Back-off pulling image "${requested}"`, backoff.expiresAt(key));
      }
      const fields = { pod: podRef(pod), image: requested };
      log.info("Pulling image", fields);
      const queued = clock.now();
      const pull = pullQueue.then(async () => {
        const started = clock.now();
        const res = await cri.image.pullImage({ image: { image, annotations }, sandboxConfig }, { signal });
        return { imageRef: res.imageRef, pullMs: clock.now() - started };
      });
      pullQueue = pull.catch(() => undefined);
      try {
        const { imageRef, pullMs } = await pull;
        log.info("Successfully pulled image", { ...fields, durationMs: pullMs, includingWaitingMs: clock.now() - queued });
        backoff.gc();
        return { imageRef, pullMs: clock.now() - queued };
      } catch (err) {
        backoff.next(key);
        const message = isCriError(err) ? err.detail : (err as Error).message;
        log.warn("Failed to pull image; bunlet backs off before the next attempt", { ...fields, err: message, backoffMs: backoff.get(key) });
        throw new SyncError(Reason.ErrImagePull, message);
      }
    },
    forgetPod(uid) {
      backoff.resetPrefix(`${uid}_`);
    },
    gc() {
      backoff.gc();
    },
  };
}
