/**
 * The ContainerConfig for CreateContainer (generateContainerConfig): command and args with $(VAR)
 * expansion against the container's environment, env, mounts, the log path
 * `<container>/<restartCount>.log` (its directory created 0755), tty/stdin, Linux resources and
 * security context, and the kubelet's labels and annotations. Failures are SyncErrors with reason CreateContainerConfigError.
 */
import { mkdirSync } from "node:fs";
import type { Container, Pod } from "../api/index.ts";
import { makeContainerConfig, type ContainerConfig } from "../cri/index.ts";
import { newContainerAnnotations, newContainerLabels, type ContainerKind } from "../container/index.ts";
import { makeEnvironmentVariables, type EnvContext } from "./env.ts";
import { expand, mappingFor } from "./expansion.ts";
import { containerLogPath, containerLogsDirectory } from "./logs.ts";
import { containerLinuxResources, containerOOMScoreAdjust } from "./resources.ts";
import { containerSecurityContext, type ImageUser } from "./security.ts";
import type { ImageSpecInit } from "./image-volumes.ts";
import { makeMounts } from "./volumes.ts";
import { idmapMounts, type UserNamespaceInit } from "./userns.ts";
import type { Logger } from "../lib/index.ts";
import type { Subpather } from "../subpath/index.ts";

export interface ContainerConfigInput {
  pod: Pod;
  container: Container;
  kind: ContainerKind;
  restartCount: number;
  /** The resolved image (id) from EnsureImageExists. */
  imageRef: string;
  imageUser: ImageUser;
  env: EnvContext;
  podLogsDir: string;
  podsDir: string;
  seccompRoot: string;
  /** cgroup v2 host: ask for memory.oom.group so a container is OOM-killed as a unit. */
  cgroupV2: boolean;
  randomHex: () => string;
  /** --cluster-domain, for the managed /etc/hosts of a pod with a subdomain. */
  clusterDomain: string;
  /** subPath mounts (src/subpath). */
  subpather: Subpather;
  /** The image volumes this container mounts, by volume name (src/runtime/image-volumes.ts). */
  imageVolumes?: ReadonlyMap<string, ImageSpecInit>;
  /** The pod's userns_options, as its sandbox config has them; a pod's own namespace maps every mount too. */
  userNamespace?: UserNamespaceInit;
  log: Logger;
}

export async function generateContainerConfig(input: ContainerConfigInput, signal?: AbortSignal): Promise<ContainerConfig> {
  const { pod, container, restartCount } = input;
  const envs = await makeEnvironmentVariables(pod, container, input.env, signal);
  const mapping = mappingFor(new Map(envs.map((e) => [e.name, e.value])));
  const { namespace = "", name = "", uid = "" } = pod.metadata;
  mkdirSync(containerLogsDirectory(input.podLogsDir, namespace, name, uid, container.name), { recursive: true, mode: 0o755 });
  const resources = containerLinuxResources(container.resources);
  const encoder = new TextEncoder();
  const mounts = await makeMounts(pod, container, {
    podsDir: input.podsDir,
    randomHex: input.randomHex,
    hosts: { podIPs: input.env.podIPs, clusterDomain: input.clusterDomain },
    envs,
    subpather: input.subpather,
    imageVolumes: input.imageVolumes,
    log: input.log,
  });
  return makeContainerConfig({
    metadata: { name: container.name, attempt: restartCount },
    image: { image: input.imageRef, userSpecifiedImage: container.image ?? "" },
    command: (container.command ?? []).map((c) => expand(c, mapping)),
    args: (container.args ?? []).map((a) => expand(a, mapping)),
    workingDir: container.workingDir ?? "",
    envs: envs.map((e) => ({ key: e.name, value: encoder.encode(e.value) })),
    mounts: idmapMounts(mounts, input.userNamespace),
    labels: newContainerLabels(container, pod, input.kind),
    annotations: newContainerAnnotations(container, pod, restartCount),
    logPath: containerLogPath(container.name, restartCount),
    stdin: container.stdin ?? false,
    stdinOnce: container.stdinOnce ?? false,
    tty: container.tty ?? false,
    linux: {
      resources: {
        cpuShares: BigInt(resources.cpuShares),
        cpuQuota: BigInt(resources.cpuQuota),
        cpuPeriod: BigInt(resources.cpuPeriod),
        memoryLimitInBytes: BigInt(resources.memoryLimitInBytes),
        oomScoreAdj: BigInt(containerOOMScoreAdjust(pod, container, input.env.memoryCapacity)),
        unified: input.cgroupV2 ? { "memory.oom.group": "1" } : {},
      },
      securityContext: containerSecurityContext(pod, container, input.imageUser, input.seccompRoot, input.userNamespace),
    },
  });
}
