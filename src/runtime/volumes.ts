/**
 * The mounts of a container (makeMounts): each volumeMount becomes a bind mount of the volume's
 * host directory, which the volume manager set up before the sandbox started (hostPath is the
 * path itself; emptyDir, configMap, secret, downwardAPI and projected live under the kubelet's
 * layout, `<podsDir>/<uid>/volumes/<plugin>/<name>`). Any other volume type fails the container
 * with CreateContainerConfigError instead of silently running without its data. configMap,
 * secret, downwardAPI and projected volumes are always read-only in the container (their
 * plugins' ReadOnly attribute, since Kubernetes 1.10): the agent owns their files, and a
 * container that could write them could plant a `..data` symlink for the writer to follow.
 *
 * A subPath (or an expanded subPathExpr) is never joined to the volume and handed to the runtime:
 * it is checked (relative, no `..`), a missing directory is created inside the volume without
 * following symlinks, and the path the runtime gets is a bind mount of the safely opened subPath
 * under `<pod dir>/volume-subpaths` (src/subpath), so a symlink a container planted in the volume
 * cannot point the mount at a host file (CVE-2017-1002101, CVE-2021-25741). The kubelet's
 * messages: the detail stays in the agent's log, as it may describe host paths.
 *
 * An image volume has no host path: the runtime mounts the image it is given (read-only, with
 * the subPath as imageSubPath, which the runtime resolves inside the image).
 *
 * The managed /etc/hosts and the termination-message file are mounted here too.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { podRef, type Container, type Pod, type Volume, type VolumeMount } from "../api/index.ts";
import { MountPropagation, type MountSchema } from "../cri/index.ts";
import { DEFAULT_TERMINATION_MESSAGE_PATH, pluginVolumeType, podVolumeDir } from "../container/index.ts";
import type { Logger } from "../lib/index.ts";
import { pathExists, SubPathError, type Subpather } from "../subpath/index.ts";
import { containerConfigError } from "./errors.ts";
import type { ImageSpecInit } from "./image-volumes.ts";
import { expand } from "./expansion.ts";
import { ensureHostsFile, ETC_HOSTS_PATH, shouldMountHostsFile } from "./hosts.ts";

/** What the managed /etc/hosts needs: the pod's IPs (host IPs for host network) and the cluster domain. */
export interface HostsInput {
  podIPs: string[];
  clusterDomain: string;
}

/** What makeMounts needs beyond the pod and the container. */
export interface MountsInput {
  podsDir: string;
  randomHex: () => string;
  hosts: HostsInput;
  /** The container's environment, for subPathExpr. */
  envs: readonly { name: string; value: string }[];
  subpather: Subpather;
  /** The image volumes this container mounts, pulled (src/runtime/image-volumes.ts). */
  imageVolumes?: ReadonlyMap<string, ImageSpecInit>;
  log: Logger;
}

type MountInit = MessageInitShape<typeof MountSchema>;

function podDir(podsDir: string, uid: string): string {
  return join(podsDir, uid);
}

function propagation(m: VolumeMount): MountPropagation {
  if (m.mountPropagation === "HostToContainer") return MountPropagation.PROPAGATION_HOST_TO_CONTAINER;
  if (m.mountPropagation === "Bidirectional") return MountPropagation.PROPAGATION_BIDIRECTIONAL;
  return MountPropagation.PROPAGATION_PRIVATE;
}

function volumeOf(pod: Pod, name: string): Volume {
  const volume = (pod.spec.volumes ?? []).find((v) => v.name === name);
  if (!volume) throw containerConfigError(`volumeMount ${JSON.stringify(name)} names no volume of the pod`);
  return volume;
}

function volumeHostPath(pod: Pod, podsDir: string, volume: Volume): string {
  // Its type was checked, and a missing *OrCreate path created, by the volume SetUp before the
  // pod got a sandbox (src/volumes); so were the plugin volumes' directories and contents.
  if (volume.hostPath) return volume.hostPath.path;
  const type = pluginVolumeType(volume);
  if (type !== undefined) return podVolumeDir(podsDir, pod.metadata.uid ?? "", type, volume.name);
  const kind = Object.keys(volume).find((k) => k !== "name") ?? "unknown";
  throw containerConfigError(`volume ${JSON.stringify(volume.name)}: type ${kind} is not supported by bunlet`);
}

/** The plugins whose mounts are read-only whatever the volumeMount says (GetAttributes().ReadOnly). */
function mustMountReadOnly(volume: Volume): boolean {
  return volume.configMap !== undefined || volume.secret !== undefined || volume.downwardAPI !== undefined || volume.projected !== undefined;
}

/**
 * ExpandContainerVolumeMounts: subPathExpr with $(VAR) from the container's env; a variable that
 * is unknown or empty fails the container.
 */
export function expandSubPathExpr(expr: string, envs: readonly { name: string; value: string }[]): string {
  const vars = new Map(envs.map((e) => [e.name, e.value]));
  const missing = new Set<string>();
  const expanded = expand(expr, (key) => {
    const value = vars.get(key);
    if (value === undefined || value === "") missing.add(key);
    return value ?? "";
  });
  if (missing.size > 0) throw containerConfigError(`missing value for ${[...missing].sort().join(", ")}`);
  return expanded;
}

/** The node-side check of a subPath (makeMounts): the apiserver's rules again, for every source. */
export function checkSubPath(subPath: string): void {
  if (isAbsolute(subPath)) throw containerConfigError(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split("/").includes("..")) throw containerConfigError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
}

/** The subPath's host path for the runtime: created if missing, then bind-mounted safely. */
async function subPathHostPath(pod: Pod, container: Container, index: number, m: VolumeMount, volumePath: string, subPath: string, input: MountsInput): Promise<string> {
  const fields = { pod: podRef(pod), containerName: container.name, volumeMountName: m.name };
  const hostPath = join(volumePath, subPath);
  let exists = true;
  try {
    exists = pathExists(hostPath);
  } catch (err) {
    input.log.error("Could not determine if subPath exists, will not attempt to change its permissions", { ...fields, path: hostPath, err });
  }
  if (!exists) {
    // Created now with the volume root's mode (setgid and sticky bits included), so that an
    // fsGroup volume's subPath is group-writable; the runtime would make it 0755 root:root.
    const perm = statSync(volumePath).mode & 0o7777;
    try {
      input.subpather.safeMakeDir(subPath, volumePath, perm);
    } catch (err) {
      if (!(err instanceof SubPathError && err.code === "EEXIST")) {
        input.log.error("Failed to create subPath directory for volumeMount of the container", { ...fields, err });
        throw containerConfigError(`failed to create subPath directory for volumeMount ${JSON.stringify(m.name)} of container ${JSON.stringify(container.name)}`);
      }
    }
  }
  try {
    return await input.subpather.prepareSafeSubpath({
      volumeMountIndex: index,
      path: hostPath,
      volumeName: m.name,
      volumePath,
      podDir: podDir(input.podsDir, pod.metadata.uid ?? ""),
      containerName: container.name,
    });
  } catch (err) {
    input.log.error("Failed to prepare subPath for volumeMount of the container", { ...fields, err });
    throw containerConfigError(`failed to prepare subPath for volumeMount ${JSON.stringify(m.name)} of container ${JSON.stringify(container.name)}`);
  }
}

/**
 * The container's volume mounts, then its termination-message file: a fresh file per container
 * instance (`<podsDir>/<uid>/containers/<name>/<random hex>`, mode 0666) mounted at
 * terminationMessagePath, where the kubelet later reads the message from.
 */
export async function makeMounts(pod: Pod, container: Container, input: MountsInput): Promise<MountInit[]> {
  const { podsDir, hosts } = input;
  const mounts: MountInit[] = [];
  for (const [index, m] of (container.volumeMounts ?? []).entries()) {
    const volume = volumeOf(pod, m.name);
    const subPath = m.subPathExpr ? expandSubPathExpr(m.subPathExpr, input.envs) : (m.subPath ?? "");
    if (subPath !== "") checkSubPath(subPath);
    if (volume.image) {
      const image = input.imageVolumes?.get(m.name);
      if (!image) throw containerConfigError(`image volume ${JSON.stringify(m.name)} was not pulled`);
      mounts.push({ containerPath: m.mountPath, hostPath: "", readonly: true, propagation: propagation(m), image, imageSubPath: subPath });
      continue;
    }
    let hostPath = volumeHostPath(pod, podsDir, volume);
    if (subPath !== "") hostPath = await subPathHostPath(pod, container, index, m, hostPath, subPath, input);
    mounts.push({
      containerPath: m.mountPath,
      hostPath,
      readonly: (m.readOnly ?? false) || mustMountReadOnly(volume),
      propagation: propagation(m),
    });
  }
  if (shouldMountHostsFile(container, hosts.podIPs)) {
    const file = ensureHostsFile(podDir(podsDir, pod.metadata.uid ?? ""), pod, hosts.podIPs, hosts.clusterDomain);
    mounts.push({ hostPath: file, containerPath: ETC_HOSTS_PATH, readonly: false });
  }
  const path = container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  if (path) {
    const dir = join(podDir(podsDir, pod.metadata.uid ?? ""), "containers", container.name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, input.randomHex());
    closeSync(openSync(file, "w"));
    chmodSync(file, 0o666);
    mounts.push({ hostPath: file, containerPath: path });
  }
  return mounts;
}
