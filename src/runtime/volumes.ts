/**
 * The mounts of a container. hostPath and (disk-backed) emptyDir volumes, the two that need no
 * apiserver, are turned into bind mounts here, under the kubelet's
 * layout `<podsDir>/<uid>/volumes/kubernetes.io~empty-dir/<name>`. Any other volume type fails the
 * container with CreateContainerConfigError instead of silently running without its data.
 * The termination-message file is mounted here too (makeMounts).
 */
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Container, Pod, VolumeMount } from "../api/index.ts";
import { MountPropagation, type MountSchema } from "../cri/index.ts";
import { DEFAULT_TERMINATION_MESSAGE_PATH } from "../container/index.ts";
import { containerConfigError } from "./errors.ts";

type MountInit = MessageInitShape<typeof MountSchema>;

function podDir(podsDir: string, uid: string): string {
  return join(podsDir, uid);
}

function propagation(m: VolumeMount): MountPropagation {
  if (m.mountPropagation === "HostToContainer") return MountPropagation.PROPAGATION_HOST_TO_CONTAINER;
  if (m.mountPropagation === "Bidirectional") return MountPropagation.PROPAGATION_BIDIRECTIONAL;
  return MountPropagation.PROPAGATION_PRIVATE;
}

function volumeHostPath(pod: Pod, podsDir: string, name: string): string {
  const volume = (pod.spec.volumes ?? []).find((v) => v.name === name);
  if (!volume) throw containerConfigError(`volumeMount ${JSON.stringify(name)} names no volume of the pod`);
  // Its type was checked, and a missing *OrCreate path created, by the volume SetUp before the
  // pod got a sandbox (src/volumes).
  if (volume.hostPath) return volume.hostPath.path;
  if (volume.emptyDir) {
    if (volume.emptyDir.medium === "Memory") {
      throw containerConfigError(`volume ${JSON.stringify(name)}: emptyDir medium Memory is not supported by bunlet`);
    }
    const dir = join(podDir(podsDir, pod.metadata.uid ?? ""), "volumes", "kubernetes.io~empty-dir", name);
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    return dir;
  }
  const kind = Object.keys(volume).find((k) => k !== "name") ?? "unknown";
  throw containerConfigError(`volume ${JSON.stringify(name)}: type ${kind} is not supported by bunlet (no apiserver, no volume plugins)`);
}

/**
 * The container's volume mounts, then its termination-message file: a fresh file per container
 * instance (`<podsDir>/<uid>/containers/<name>/<random hex>`, mode 0666) mounted at
 * terminationMessagePath, where the kubelet later reads the message from.
 */
export function makeMounts(pod: Pod, container: Container, podsDir: string, randomHex: () => string): MountInit[] {
  const mounts: MountInit[] = (container.volumeMounts ?? []).map((m) => {
    const base = volumeHostPath(pod, podsDir, m.name);
    return {
      containerPath: m.mountPath,
      hostPath: m.subPath ? join(base, m.subPath) : base,
      readonly: m.readOnly ?? false,
      propagation: propagation(m),
    };
  });
  const path = container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  if (path) {
    const dir = join(podDir(podsDir, pod.metadata.uid ?? ""), "containers", container.name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, randomHex());
    closeSync(openSync(file, "w"));
    chmodSync(file, 0o666);
    mounts.push({ hostPath: file, containerPath: path });
  }
  return mounts;
}
