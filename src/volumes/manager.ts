/**
 * The kubelet's volume manager, for the volumes a node sets up itself: before a pod gets its
 * sandbox (WaitForAttachAndMount) every volume a container mounts is set up under
 * `<podsDir>/<uid>/volumes/<plugin>/<name>`: hostPath checked, emptyDir made (a tmpfs for medium
 * Memory), configMap, secret, downwardAPI and projected volumes written by the AtomicWriter
 * (secret, downwardAPI and projected on a tmpfs, so secrets never reach the disk). Each pod sync
 * sets them up again, which is how a changed ConfigMap, Secret or label reaches the files and a
 * token is refreshed. A volume that fails gets a FailedMount event and the pod gets no sandbox;
 * its worker retries with backoff. After the pod's containers are gone its subPath bind mounts
 * are cleaned up (src/subpath; they may hold a volume or a host directory), then its tmpfs mounts
 * are unmounted and its volume directories removed.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { podRef, podUID, type ConfigMap, type Pod, type Secret, type Volume } from "../api/index.ts";
import { pluginVolumeType, podVolumeDir, volumePluginName, type NodeFacts } from "../container/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { createSubpather, type Subpather } from "../subpath/index.ts";
import { writeAtomically, type Payload } from "./atomic-writer.ts";
import { emptyDirMemorySize, setUpDiskDir, setUpTmpfs } from "./emptydir.ts";
import { realHostPathFs, setUpHostPath, type HostPathFs } from "./hostpath.ts";
import { realMounter, type Mounter } from "./mounter.ts";
import { VolumeStates } from "./states.ts";
import { setVolumeOwnership } from "./ownership.ts";
import { configMapPayload, DEFAULT_MODE, downwardAPIPayload, secretPayload } from "./payload.ts";
import { projectedPayload, type PodCredentialSource, type ProjectedSources, type TrustAnchorSource } from "./projected.ts";
import type { TokenManager } from "./tokens.ts";

/** git_repo.go's SetUp error. */
const GIT_REPO_DISABLED =
  "git-repo volume plugin has been disabled; if necessary, it may be re-enabled by enabling the feature-gate `GitRepoVolumeDriver`";

/** One volume's failed SetUp, worded as the kubelet's FailedMount event. */
export interface VolumeFailure {
  volume: string;
  message: string;
}

/** The pod's volumes could not all be set up; the message lists each failure. */
export class VolumeSetUpError extends Error {
  override readonly name = "VolumeSetUpError";
  constructor(readonly failures: readonly VolumeFailure[]) {
    const names = failures.map((f) => f.volume).join(" ");
    const details = failures.map((f) => `MountVolume.SetUp failed for volume ${JSON.stringify(f.volume)} : ${f.message}`).join("; ");
    super(`unmounted volumes=[${names}]: ${details}`);
  }
}

/** Names of the volumes some container, init container or ephemeral container mounts (GetPodVolumeNames). */
export function mountedVolumeNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])];
  for (const c of containers) for (const m of c.volumeMounts ?? []) names.add(m.name);
  return names;
}

/** The API objects volumes read; undefined from a getter means the object does not exist. */
export interface VolumeObjects {
  configMap(namespace: string, name: string, signal?: AbortSignal): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string, signal?: AbortSignal): Promise<Secret | undefined>;
  tokens: TokenManager;
  /** clusterTrustBundle projections. */
  trustBundles: TrustAnchorSource;
  /** podCertificate projections. */
  podCertificates: PodCredentialSource;
}

/** Records an event about the pod (the kubelet's recorder.Eventf). */
export type RecordEvent = (pod: Pod, type: "Normal" | "Warning", reason: string, message: string) => void;

export interface VolumeManagerDeps {
  podsDir: string;
  /** undefined when standalone: API-backed volumes cannot be set up. */
  objects?: VolumeObjects;
  /** Node facts for downwardAPI resource values and the memory-backed size. */
  node: Omit<NodeFacts, "podIPs">;
  recordEvent: RecordEvent;
  clock: Clock;
  log: Logger;
  mounter?: Mounter;
  hostPathFs?: HostPathFs;
  /** subPath mounts to clean up at teardown; default: the real one. */
  subpather?: Subpather;
  /** storage_operation_duration_seconds: each set-up (volume_mount) and tear-down (volume_unmount). */
  metrics?: StorageOperationMetrics;
}

type StorageOperationLabels = { volume_plugin: string; operation_name: string; status: string; migrated: string };

export interface StorageOperationMetrics {
  storageOperationDuration: { observe(labels: StorageOperationLabels, seconds: number): void };
}

export interface VolumeManager {
  /** Sets up every mounted volume of the pod; throws VolumeSetUpError naming each one that failed. */
  waitForAttachAndMount(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** The volumes to mount and those mounted, per plugin (volume_manager_total_volumes). */
  totalVolumes(): ReturnType<VolumeStates["counts"]>;
  /** Cleans up the pod's subPath mounts, then unmounts and removes its volumes; its containers must be gone. */
  unmountPodVolumes(uid: string): Promise<void>;
}

const WRITABLE = false;
const READ_ONLY = true;

export function createVolumeManager(deps: VolumeManagerDeps): VolumeManager {
  const mounter = deps.mounter ?? realMounter;
  const hostPathFs = deps.hostPathFs ?? realHostPathFs;
  const subpather = deps.subpather ?? createSubpather({ log: deps.log });
  const states = new VolumeStates();
  const { log } = deps;

  function objectsOrFail(kind: string, namespace: string, name: string): VolumeObjects {
    if (!deps.objects) throw new Error(`cannot get ${kind} ${namespace}/${name}: no API client (bunlet runs standalone)`);
    return deps.objects;
  }

  async function getConfigMap(namespace: string, name: string, optional: boolean, signal?: AbortSignal): Promise<ConfigMap> {
    const cm = await objectsOrFail("configmap", namespace, name).configMap(namespace, name, signal);
    if (cm) return cm;
    if (optional) return { metadata: { name, namespace } };
    throw new Error(`configmap "${name}" not found`);
  }

  async function getSecret(namespace: string, name: string, optional: boolean, signal?: AbortSignal): Promise<Secret> {
    const s = await objectsOrFail("secret", namespace, name).secret(namespace, name, signal);
    if (s) return s;
    if (optional) return { metadata: { name, namespace } };
    throw new Error(`secret "${name}" not found`);
  }

  const projectedSources: ProjectedSources = {
    configMap: getConfigMap,
    secret: getSecret,
    tokens: (namespace, serviceAccount) => objectsOrFail("serviceaccount", namespace, serviceAccount).tokens,
    // Standalone, as the kubelet's NoopManager and NoOpManager answer.
    trustBundles: () => orFail(deps.objects?.trustBundles, "ClusterTrustBundle projection is not supported in static kubelet mode"),
    podCertificates: () => orFail(deps.objects?.podCertificates, "unimplemented"),
    node: deps.node,
  };

  /** The payload of an AtomicWriter-backed volume, read before its directory is touched. */
  async function payloadOf(pod: Pod, volume: Volume, signal?: AbortSignal): Promise<Payload> {
    const namespace = pod.metadata.namespace ?? "";
    if (volume.configMap) {
      const src = volume.configMap;
      const optional = src.optional ?? false;
      return configMapPayload(src.items, await getConfigMap(namespace, src.name ?? "", optional, signal), src.defaultMode ?? DEFAULT_MODE, optional);
    }
    if (volume.secret) {
      const src = volume.secret;
      const optional = src.optional ?? false;
      return secretPayload(src.items, await getSecret(namespace, src.secretName ?? "", optional, signal), src.defaultMode ?? DEFAULT_MODE, optional);
    }
    if (volume.downwardAPI) {
      return downwardAPIPayload(volume.downwardAPI.items, pod, volume.downwardAPI.defaultMode ?? DEFAULT_MODE, { ...deps.node, podIPs: [] });
    }
    return projectedPayload(projectedSources, pod, volume, signal);
  }

  async function setUp(pod: Pod, volume: Volume, signal?: AbortSignal): Promise<void> {
    if (volume.hostPath) return setUpHostPath(volume.hostPath.path, volume.hostPath.type ?? "", hostPathFs);
    // Cloning runs git on pod-supplied input on the host (CVE-2024-10220): bunlet never does,
    // and words the refusal as the kubelet with GitRepoVolumeDriver off (locked off since 1.36).
    if (volume.gitRepo) throw new Error(GIT_REPO_DISABLED);
    const type = pluginVolumeType(volume);
    // Other types fail the container with CreateContainerConfigError when it is created (src/runtime).
    if (type === undefined) return;
    const dir = podVolumeDir(deps.podsDir, podUID(pod), type, volume.name);
    const memorySize = () => emptyDirMemorySize(BigInt(deps.node.memoryCapacity), volume.emptyDir?.sizeLimit, pod);
    const fsGroup = pod.spec.securityContext?.fsGroup;
    if (type === "emptyDir") {
      if (volume.emptyDir!.medium === "Memory") await setUpTmpfs(dir, memorySize(), mounter);
      else if (!volume.emptyDir!.medium) setUpDiskDir(dir);
      else throw new Error(`unsupported storage medium ${JSON.stringify(volume.emptyDir!.medium)}: bunlet sets up "" and Memory`);
      setVolumeOwnership(dir, fsGroup, WRITABLE, pod.spec.securityContext?.fsGroupChangePolicy);
      return;
    }
    // The data is read first: a missing object leaves no empty directory behind for a container.
    const payload = await payloadOf(pod, volume, signal);
    if (type === "configMap") setUpDiskDir(dir);
    else await setUpTmpfs(dir, memorySize(), mounter);
    const { written, found } = writeAtomically(dir, payload, deps.clock.now());
    if (found.length > 0) {
      // Only a container (or a person on the host) changes these files: say so loudly.
      log.warn("Volume was not as bunlet left it (tampered with?); its data and links were written again", {
        pod: podRef(pod),
        volume: volume.name,
        plugin: type,
        path: dir,
        found,
      });
    }
    if (written) setVolumeOwnership(dir, fsGroup, READ_ONLY);
    log.debug("Volume set up", { pod: podRef(pod), volume: volume.name, plugin: type, updated: written }, written ? 3 : 5);
  }

  /** OperationCompleteHook: times one operation of a plugin; "success" or "fail-unknown". */
  function operation(plugin: string | undefined, name: string): (ok: boolean) => void {
    const start = deps.clock.now();
    return (ok) => {
      if (plugin === undefined) return;
      deps.metrics?.storageOperationDuration.observe({ volume_plugin: plugin, operation_name: name, status: ok ? "success" : "fail-unknown", migrated: "false" }, (deps.clock.now() - start) / 1000);
    };
  }

  /** Unmounts what is mounted at or under dir (deepest first), then removes dir. */
  async function tearDown(uid: string, dir: string): Promise<void> {
    for (const point of mounter.mountsUnder(dir)) {
      await mounter.unmount(point);
      log.debug("UnmountVolume.TearDown succeeded", { podUID: uid, path: point }, 3);
    }
    rmSync(dir, { recursive: true, force: true });
  }

  return {
    async waitForAttachAndMount(pod, signal) {
      const used = mountedVolumeNames(pod);
      const failures: VolumeFailure[] = [];
      for (const volume of pod.spec.volumes ?? []) {
        if (!used.has(volume.name)) continue;
        const plugin = volumePluginName(volume);
        const done = operation(plugin, "volume_mount");
        if (plugin) states.record("desired_state_of_world", podUID(pod), volume.name, plugin);
        try {
          await setUp(pod, volume, signal);
          done(true);
          if (plugin) states.record("actual_state_of_world", podUID(pod), volume.name, plugin);
        } catch (err) {
          signal?.throwIfAborted();
          done(false);
          states.remove("actual_state_of_world", podUID(pod), volume.name);
          const message = err instanceof Error ? err.message : String(err);
          failures.push({ volume: volume.name, message });
          deps.recordEvent(pod, "Warning", "FailedMount", `MountVolume.SetUp failed for volume ${JSON.stringify(volume.name)} : ${message}`);
        }
      }
      if (failures.length > 0) throw new VolumeSetUpError(failures);
    },

    async unmountPodVolumes(uid) {
      deps.objects?.tokens.deleteServiceAccountToken(uid);
      deps.objects?.podCertificates.forgetPod(uid);
      // CleanSubPaths before TearDown: a bind mount of a subPath keeps its volume's tmpfs alive
      // and must never be inside the directory a removal walks.
      await subpather.cleanSubPaths(join(deps.podsDir, uid));
      const volumesDir = join(deps.podsDir, uid, "volumes");
      // Each volume is torn down and timed on its own, as the kubelet's UnmountVolume operations.
      for (const plugin of readdirOrEmpty(volumesDir)) {
        for (const name of readdirOrEmpty(join(volumesDir, plugin))) {
          const done = operation(plugin.replace("~", "/"), "volume_unmount");
          try {
            await tearDown(uid, join(volumesDir, plugin, name));
            done(true);
          } catch (err) {
            done(false);
            throw err;
          }
        }
      }
      // What is left: the (now empty) plugin directories, and anything mounted beside a volume.
      for (const plugin of readdirOrEmpty(volumesDir)) await tearDown(uid, join(volumesDir, plugin));
      states.forget(uid);
    },

    totalVolumes: () => states.counts(),
  };
}

function orFail<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new Error(message);
  return value;
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
