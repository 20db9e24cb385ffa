/**
 * Removal of dead containers and sandboxes (kuberuntime_gc.go, pod_container_deletor.go): the
 * newest exited container per (pod, container name) is kept (MaxPerPodContainer = 1), older ones go;
 * pods that are gone lose all dead containers, their not-ready sandboxes, and their log and pod
 * directories. Removing a container also removes its legacy log symlink.
 */
import { existsSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "../api/index.ts";
import { isNotFound, labels as L, PodSandboxState, ContainerState, type CriClient } from "../cri/index.ts";
import { mountPointsUnder, type Logger } from "../lib/index.ts";
import { containerInfoFromLabels, type RuntimePodStatus, type RuntimeContainerStatus } from "../container/index.ts";
import { legacyLogSymlink } from "./logs.ts";

export interface GcDeps {
  cri: CriClient;
  log: Logger;
  containerLogsDir: string;
  podLogsDir: string;
  podsDir: string;
}

interface Opts {
  signal?: AbortSignal;
}

/** ContainerStatus (for the symlink's name), the symlink, then RemoveContainer. */
async function removeContainer(deps: GcDeps, containerId: string, opts: Opts = {}): Promise<void> {
  const res = await deps.cri.runtime.containerStatus({ containerId }, opts);
  const info = containerInfoFromLabels(res.status?.labels ?? {});
  rmSync(legacyLogSymlink(deps.containerLogsDir, info.podName, info.podNamespace, info.containerName, containerId), { force: true });
  await deps.cri.runtime.removeContainer({ containerId }, opts);
}

async function removeLogged(deps: GcDeps, id: string, what: string, opts: Opts): Promise<void> {
  try {
    await removeContainer(deps, id, opts);
  } catch (err) {
    if (!isNotFound(err)) deps.log.warn(`Failed to remove ${what}; garbage collection retries`, { containerID: id, err });
  }
}

function initStatuses(pod: Pod, podStatus: RuntimePodStatus): Map<string, RuntimeContainerStatus[]> {
  const byName = new Map<string, RuntimeContainerStatus[]>();
  for (const c of pod.spec.initContainers ?? []) byName.set(c.name, []);
  for (const s of podStatus.containerStatuses) byName.get(s.name)?.push(s);
  return byName;
}

/** After the sandbox is recreated every init container runs again: remove all old ones. */
export async function purgeInitContainers(deps: GcDeps, pod: Pod, podStatus: RuntimePodStatus, opts: Opts = {}): Promise<void> {
  for (const statuses of initStatuses(pod, podStatus).values()) {
    for (const s of statuses) await removeLogged(deps, s.id, "init container", opts);
  }
}

/** Before starting init containers: keep only the newest exited (or unknown) run of each. */
export async function pruneInitContainersBeforeStart(deps: GcDeps, pod: Pod, podStatus: RuntimePodStatus, opts: Opts = {}): Promise<void> {
  for (const statuses of initStatuses(pod, podStatus).values()) {
    const dead = statuses.filter((s) => s.state === "exited" || s.state === "unknown");
    for (const s of dead.slice(1)) await removeLogged(deps, s.id, "init container", opts);
  }
}

/** Removes the pod's exited containers beyond the newest per name (all of them with removeAll). */
export async function cleanUpContainersInPod(deps: GcDeps, uid: string, removeAll: boolean, opts: Opts = {}): Promise<void> {
  const { containers } = await deps.cri.runtime.listContainers({ filter: { labelSelector: { [L.KubernetesPodUIDLabel]: uid } } }, opts);
  const byName = new Map<string, typeof containers>();
  for (const c of containers) {
    if (c.state !== ContainerState.CONTAINER_EXITED) continue;
    const name = containerInfoFromLabels(c.labels).containerName;
    byName.set(name, [...(byName.get(name) ?? []), c]);
  }
  for (const list of byName.values()) {
    list.sort((a, b) => (b.createdAt > a.createdAt ? 1 : b.createdAt < a.createdAt ? -1 : 0));
    for (const c of list.slice(removeAll ? 0 : 1)) await removeLogged(deps, c.id, "dead container", opts);
  }
}

/**
 * Container GC: dead containers per (pod, name) beyond the newest (all of them for gone pods);
 * sandboxes that are not ready and hold no container, except the newest of a pod that still exists;
 * then the log and pod directories of gone pods that have nothing left in the runtime.
 */
export async function garbageCollect(deps: GcDeps, isPodGone: (uid: string) => boolean, opts: Opts = {}): Promise<void> {
  const { containers } = await deps.cri.runtime.listContainers({}, opts);
  const units = new Map<string, { id: string; createdAt: bigint }[]>();
  for (const c of containers) {
    if (c.state === ContainerState.CONTAINER_RUNNING) continue;
    const info = containerInfoFromLabels(c.labels);
    if (!info.podUid) continue; // not created by a kubelet
    const key = `${info.podUid}/${c.metadata?.name ?? info.containerName}`;
    units.set(key, [...(units.get(key) ?? []), { id: c.id, createdAt: c.createdAt }]);
  }
  for (const [key, list] of units) {
    list.sort((a, b) => (b.createdAt > a.createdAt ? 1 : b.createdAt < a.createdAt ? -1 : 0));
    const keep = isPodGone(key.slice(0, key.indexOf("/"))) ? 0 : 1;
    for (const c of list.slice(keep)) await removeLogged(deps, c.id, "dead container", opts);
  }

  const left = (await deps.cri.runtime.listContainers({}, opts)).containers;
  const withContainers = new Set(left.map((c) => c.podSandboxId));
  const { items } = await deps.cri.runtime.listPodSandbox({}, opts);
  const byPod = new Map<string, typeof items>();
  for (const s of items) {
    const uid = s.metadata?.uid ?? s.labels[L.KubernetesPodUIDLabel];
    if (!uid) continue;
    byPod.set(uid, [...(byPod.get(uid) ?? []), s]);
  }
  const stillInRuntime = new Set(left.map((c) => containerInfoFromLabels(c.labels).podUid));
  for (const [uid, sandboxes] of byPod) {
    sandboxes.sort((a, b) => (b.createdAt > a.createdAt ? 1 : b.createdAt < a.createdAt ? -1 : 0));
    // A pod that still exists keeps its newest sandbox (it holds the attempt number).
    const keep = isPodGone(uid) ? 0 : 1;
    if (sandboxes.length > 0 && keep === 1) stillInRuntime.add(uid);
    for (const s of sandboxes.slice(keep)) {
      const active = s.state === PodSandboxState.SANDBOX_READY || withContainers.has(s.id);
      if (active || !(await removeSandbox(deps, s.id, opts))) stillInRuntime.add(uid);
    }
  }
  removeGoneDirectories(deps, isPodGone, stillInRuntime);
}

/** Stops (in case it was not) and removes a sandbox; false when it is still there. */
async function removeSandbox(deps: GcDeps, id: string, opts: Opts): Promise<boolean> {
  try {
    await deps.cri.runtime.stopPodSandbox({ podSandboxId: id }, opts);
    await deps.cri.runtime.removePodSandbox({ podSandboxId: id }, opts);
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    deps.log.warn("Failed to remove sandbox; garbage collection retries", { podSandboxID: id, err });
    return false;
  }
}

/** Pod log dirs (`<ns>_<name>_<uid>`) and pod dirs (`<uid>`) of gone pods with nothing left. */
function removeGoneDirectories(deps: GcDeps, isPodGone: (uid: string) => boolean, stillInRuntime: Set<string>): void {
  const gone = (uid: string) => uid !== "" && isPodGone(uid) && !stillInRuntime.has(uid);
  for (const name of listDir(deps.podLogsDir)) {
    if (gone(name.slice(name.lastIndexOf("_") + 1))) rmSync(join(deps.podLogsDir, name), { recursive: true, force: true });
  }
  for (const uid of listDir(deps.podsDir)) {
    if (!gone(uid)) continue;
    const dir = join(deps.podsDir, uid);
    // A recursive removal would walk through a mount into what it holds (a tmpfs volume, or a
    // host directory a subPath bind-mounts): a pod directory with mounts waits for the volume
    // teardown, which housekeeping retries.
    if (mountPointsUnder(dir).length > 0) continue;
    rmSync(dir, { recursive: true, force: true });
  }
  // Links whose log file is gone (evictPodLogsDirectories).
  for (const name of listDir(deps.containerLogsDir)) {
    if (!name.endsWith(".log")) continue;
    const link = join(deps.containerLogsDir, name);
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && !existsSync(link)) rmSync(link, { force: true });
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
