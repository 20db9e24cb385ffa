/**
 * What the pod syncer, the sync handlers and the upkeep share, made before the pod workers: the
 * pod directories, the work queue, the active deadline, the node as admission sees it, the
 * active pods, the allocation manager (in-place resize), the mirror pods and the pod cgroups.
 * Those that must reach the workers (which are made after them) go through the PodWorkersRef.
 */
import { join } from "node:path";
import type { Pod } from "../api/index.ts";
import type { AdmissionNode, SysctlAllowlist } from "../admission/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { createMirrorPods, type MirrorPods } from "../mirrorpods/index.ts";
import { WorkQueue } from "../podworkers/index.ts";
import {
  admissionNode,
  admitHandlers,
  createActiveDeadlineHandler,
  createActivePods,
  createAllocation,
  createPodDirs,
  podCgroupsOf,
  sysctlAllowlist,
  type ActiveDeadlineHandler,
  type Allocation,
  type PodCgroups,
  type PodDirs,
  type PodWorkersRef,
} from "../podsync/index.ts";
import type { WireBase } from "./wire-base.ts";
import type { PodOptions } from "./wire-pods.ts";
import type { RuntimeParts } from "./wire-runtime.ts";
import type { SourceParts } from "./wire-sources.ts";

export interface PodPolicy {
  podDirs: PodDirs;
  workQueue: WorkQueue;
  activeDeadline: ActiveDeadlineHandler;
  admission: { node: AdmissionNode; sysctls: SysctlAllowlist };
  activePods(): Pod[];
  allocation: Allocation;
  mirrorPods?: MirrorPods;
  podCgroups?: PodCgroups & { cleanupOrphaned(keep: ReadonlySet<string>): void };
}

export function wirePodPolicy(config: BunletConfig, base: WireBase, rt: RuntimeParts, sources: SourceParts, opts: PodOptions, workers: PodWorkersRef): PodPolicy {
  const { clock, log, random } = base;
  const { podManager, statusManager } = opts;
  const dirs = createPodDirs({ podsDir: join(config.rootDir, "pods") });
  const activePods = createActivePods({ podManager, statusManager, workers });
  const node = admissionNode(config, opts.allocatableReservation);
  const sysctls = sysctlAllowlist(config);
  const allocation = createAllocation({
    rootDir: config.rootDir,
    actuated: rt.actuated,
    conditions: statusManager.resizeConditions,
    admit: admitHandlers(node, sysctls),
    activePods,
    podByUID: (uid) => podManager.get(uid),
    triggerPodSync: (pod) => workers.syncPodAndRelist(pod, (uid) => rt.pleg.requestPodRelist(uid)),
    sourcesReady: () => sources.sourcesReady.allReady(),
    isPodResizeInProgress: (pod, podStatus) => rt.runtime.isPodResizeInProgress(pod, podStatus),
    recorder: opts.recorder,
    clock,
    log,
  });
  // A mirror pod that changed (deleted, or edited) has its static pod synced, which puts it right.
  const resync = (fullName: string) => workers.syncPods(podManager.staticPods(fullName));
  return {
    // A pod's directory goes only after its volumes are torn down (tmpfs mounts unmounted).
    podDirs: { ...dirs, remove: async (uid: string) => (await opts.volumes.unmountPodVolumes(uid), await dirs.remove(uid)) },
    workQueue: new WorkQueue(clock),
    activeDeadline: createActiveDeadlineHandler({ podStatus: (uid) => statusManager.getPodStatus(uid), recorder: opts.recorder, clock }),
    admission: { node, sysctls },
    activePods,
    allocation,
    mirrorPods: opts.apiClient ? createMirrorPods({ client: opts.apiClient, nodeName: config.nodeName, clock, random, log, resync }) : undefined,
    podCgroups: podCgroupsOf(opts.cm, activePods),
  };
}
