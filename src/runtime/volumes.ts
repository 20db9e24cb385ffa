/**
 * The mounts of a container (makeMounts): each volumeMount becomes a bind mount of the volume's
 * host directory, which the volume manager set up before the sandbox started (hostPath is the
 * path itself; emptyDir, configMap, secret, downwardAPI and projected live under the kubelet's
 * layout, `<podsDir>/<uid>/volumes/<plugin>/<name>`). Any other volume type fails the container
 * with CreateContainerConfigError instead of silently running without its data. The managed
 * /etc/hosts and the termination-message file are mounted here too.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Container, Pod, VolumeMount } from "../api/index.ts";
import { MountPropagation, type MountSchema } from "../cri/index.ts";
import { DEFAULT_TERMINATION_MESSAGE_PATH, pluginVolumeType, podVolumeDir } from "../container/index.ts";
import { containerConfigError } from "./errors.ts";
import { ensureHostsFile, ETC_HOSTS_PATH, shouldMountHostsFile } from "./hosts.ts";

/** What the managed /etc/hosts needs: the pod's IPs (host IPs for host network) and the cluster domain. */
export interface HostsInput {
  podIPs: string[];
  clusterDomain: string;
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

function volumeHostPath(pod: Pod, podsDir: string, name: string): string {
  const volume = (pod.spec.volumes ?? []).find((v) => v.name === name);
  if (!volume) throw containerConfigError(`volumeMount ${JSON.stringify(name)} names no volume of the pod`);
  // Its type was checked, and a missing *OrCreate path created, by the volume SetUp before the
  // pod got a sandbox (src/volumes); so were the plugin volumes' directories and contents.
  if (volume.hostPath) return volume.hostPath.path;
  const type = pluginVolumeType(volume);
  if (type !== undefined) return podVolumeDir(podsDir, pod.metadata.uid ?? "", type, name);
  const kind = Object.keys(volume).find((k) => k !== "name") ?? "unknown";
  throw containerConfigError(`volume ${JSON.stringify(name)}: type ${kind} is not supported by bunlet`);
}

/**
 * The container's volume mounts, then its termination-message file: a fresh file per container
 * instance (`<podsDir>/<uid>/containers/<name>/<random hex>`, mode 0666) mounted at
 * terminationMessagePath, where the kubelet later reads the message from.
 */
export function makeMounts(pod: Pod, container: Container, podsDir: string, randomHex: () => string, hosts: HostsInput): MountInit[] {
  const mounts: MountInit[] = (container.volumeMounts ?? []).map((m) => {
    const base = volumeHostPath(pod, podsDir, m.name);
    return {
      containerPath: m.mountPath,
      hostPath: m.subPath ? join(base, m.subPath) : base,
      readonly: m.readOnly ?? false,
      propagation: propagation(m),
    };
  });
  if (shouldMountHostsFile(container, hosts.podIPs)) {
    const file = ensureHostsFile(podDir(podsDir, pod.metadata.uid ?? ""), pod, hosts.podIPs, hosts.clusterDomain);
    mounts.push({ hostPath: file, containerPath: ETC_HOSTS_PATH, readonly: false });
  }
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
