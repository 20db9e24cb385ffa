/**
 * Records → CRI messages, filling the fields containerd 1.6 fills. ContainerStatus reports the
 * image by its first tag and image_ref by its first repo digest when the image is still present
 * (containerd's toCRIContainerStatus), the id otherwise; a NOTREADY sandbox whose network was torn
 * down reports no IP. image_id stays empty: containerd 1.6 predates the field.
 */
import { create } from "@bufbuild/protobuf";
import type { Container, ContainerStatus, Image, PodSandbox, PodSandboxStatus } from "../../src/cri/index.ts";
import { ContainerSchema, ContainerStatusSchema, ImageSchema, PodSandboxSchema, PodSandboxStatusSchema } from "../../src/cri/testing.ts";
import type { FakeImage } from "./images.ts";
import type { FakeContainer, FakeSandbox } from "./types.ts";

function sandboxMetadata(s: FakeSandbox) {
  return { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt };
}

export function toPodSandbox(s: FakeSandbox): PodSandbox {
  return create(PodSandboxSchema, {
    id: s.id,
    metadata: sandboxMetadata(s),
    state: s.state,
    createdAt: s.createdAt,
    labels: { ...s.labels },
    annotations: { ...s.annotations },
    runtimeHandler: s.runtimeHandler,
  });
}

export function toPodSandboxStatus(s: FakeSandbox): PodSandboxStatus {
  const ns = s.namespaceOptions;
  return create(PodSandboxStatusSchema, {
    id: s.id,
    metadata: sandboxMetadata(s),
    state: s.state,
    createdAt: s.createdAt,
    network: { ip: s.netnsClosed ? "" : s.ip, additionalIps: [] },
    linux: {
      namespaces: {
        options: { network: ns?.network ?? 0, pid: ns?.pid ?? 0, ipc: ns?.ipc ?? 0, targetId: ns?.targetId ?? "" },
      },
    },
    labels: { ...s.labels },
    annotations: { ...s.annotations },
    runtimeHandler: s.runtimeHandler,
  });
}

export function toContainer(c: FakeContainer): Container {
  return create(ContainerSchema, {
    id: c.id,
    podSandboxId: c.podSandboxId,
    metadata: { name: c.name, attempt: c.attempt },
    image: { image: c.image },
    imageRef: c.imageId,
    state: c.state,
    createdAt: c.createdAt,
    labels: { ...c.labels },
    annotations: { ...c.annotations },
  });
}

export function toContainerStatus(c: FakeContainer, images: Map<string, FakeImage>): ContainerStatus {
  const image = images.get(c.imageId);
  return create(ContainerStatusSchema, {
    id: c.id,
    metadata: { name: c.name, attempt: c.attempt },
    state: c.state,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    image: { image: image?.repoTags[0] ?? c.image },
    imageRef: image?.repoDigests[0] ?? c.imageId,
    reason: c.reason,
    message: c.message,
    labels: { ...c.labels },
    annotations: { ...c.annotations },
    mounts: c.mounts,
    logPath: c.logPath,
    resources: { linux: c.config.linux?.resources ?? {} },
  });
}

export function toImage(img: FakeImage): Image {
  return create(ImageSchema, {
    id: img.id,
    repoTags: [...img.repoTags],
    repoDigests: [...img.repoDigests],
    size: img.size,
    username: img.username,
    pinned: img.pinned,
  });
}
