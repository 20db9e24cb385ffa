/**
 * Image volumes (KEP-4639, GA and locked on since Kubernetes 1.36): a volume whose source is an
 * OCI image, mounted read-only by the runtime (containerd 2.1 and later) from the image's
 * snapshot. As kuberuntime's getImageVolumes, the first container start of a sync pulls every
 * image volume of the pod once, each per its own pull policy and with the pod's pull secrets; a
 * container then gets the CRI image spec of each image volume it mounts, or, when one of them
 * failed to pull, fails with that pull's reason (ErrImagePull, ImagePullBackOff, ...) and a
 * Warning "Failed" event per failed volume, without being created.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Container, Pod } from "../api/index.ts";
import type { ImageSpecSchema, PodSandboxConfig } from "../cri/index.ts";
import { EventReason, type EventRecorder } from "../events/index.ts";
import { recordContainerEvent } from "./events.ts";
import type { ImageManager } from "./images.ts";
import { SyncError } from "./errors.ts";

export type ImageSpecInit = MessageInitShape<typeof ImageSpecSchema>;

/** Each image volume of a pod by name: the image spec for its mounts, or why its pull failed. */
export type ImageVolumePulls = ReadonlyMap<string, { spec: ImageSpecInit } | { err: SyncError }>;

/** getImageVolumes: every image volume of the pod ensured, the failures kept, not thrown. */
export async function pullImageVolumes(images: ImageManager, pod: Pod, sandboxConfig: PodSandboxConfig, runtimeHandler: string, signal?: AbortSignal): Promise<ImageVolumePulls> {
  const pulls = new Map<string, { spec: ImageSpecInit } | { err: SyncError }>();
  for (const volume of pod.spec.volumes ?? []) {
    if (!volume.image) continue;
    try {
      const { imageRef } = await images.ensureVolumeImage(pod, volume, sandboxConfig, signal);
      pulls.set(volume.name, {
        spec: { image: imageRef, userSpecifiedImage: volume.image.reference ?? "", runtimeHandler, annotations: { ...(pod.metadata.annotations ?? {}) } },
      });
    } catch (err) {
      if (!(err instanceof SyncError)) throw err;
      pulls.set(volume.name, { err });
    }
  }
  return pulls;
}

/**
 * toKubeContainerImageVolumes: the image specs of the image volumes this container mounts. A
 * failed pull is a Warning "Failed" event ("Error: <reason>") for each volume that failed, and
 * the container fails with the last of them.
 */
export function containerImageVolumes(deps: { recorder: EventRecorder }, pod: Pod, container: Container, pulls: ImageVolumePulls): Map<string, ImageSpecInit> {
  const specs = new Map<string, ImageSpecInit>();
  let last: SyncError | undefined;
  for (const mount of container.volumeMounts ?? []) {
    const pull = pulls.get(mount.name);
    if (!pull) continue;
    if ("err" in pull) {
      // As for a container's own image, the event names the reason only (ErrImagePull, ...).
      recordContainerEvent(deps, pod, container, "Warning", EventReason.FailedToCreateContainer, `Error: ${pull.err.reason}`);
      last = pull.err;
      continue;
    }
    specs.set(mount.name, pull.spec);
  }
  if (last) throw last;
  return specs;
}
