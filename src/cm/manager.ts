/**
 * The container manager's cgroup side (container_manager_linux.go, qos_container_manager_linux.go,
 * pod_container_manager_linux.go): at start `kubepods` (under cgroupRoot) with the node
 * allocatable values, and its `burstable` and `besteffort` tiers; per pod, `pod<uid>` under its
 * tier (Guaranteed pods straight under kubepods) created before the sandbox with the pod's values,
 * handed to RunPodSandbox as cgroup_parent, and removed once the pod's containers are gone. A
 * cgroup that is still busy stays in a list and is retried at every housekeeping, never leaked.
 */
import { computePodQOS, type Pod } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import type { CgroupFs } from "./cgroupfs.ts";
import { CgroupError } from "./cgroupfs.ts";
import { driverName, newCgroupName, parseCgroupfs, podCgroupSuffix, POD_CGROUP_PREFIX, type CgroupDriver, type CgroupName } from "./names.ts";
import { qosTierValues } from "./qos.ts";
import { resourceConfigForPod, type ResourceConfig } from "./resource-config.ts";

export interface ContainerManagerOptions {
  driver: CgroupDriver;
  /** cgroupsPerQOS: false = no kubepods hierarchy, pods get no cgroup_parent (the runtime's default). */
  cgroupsPerQOS: boolean;
  /** cgroupRoot as given ("/" by default). */
  cgroupRoot: string;
  /** cpuCFSQuota. */
  enforceCPULimits: boolean;
  cpuPeriodUs: bigint;
  /** podPidsLimit; -1 or 0 = none. */
  podPidsLimit: bigint;
  /** qosReserved memory percent, when the QOSReserved gate is on. */
  memoryReservePercent?: bigint;
  hugePageSizes: readonly bigint[];
}

/** How a driver makes a cgroup exist before values are written (systemd: a slice unit). */
export interface CgroupCreator {
  create(path: string): void;
  destroy(path: string): void;
}

export interface ContainerManagerDeps {
  fs: CgroupFs;
  creator?: CgroupCreator;
  log: Logger;
}

export interface ContainerManager {
  readonly cgroupsPerQOS: boolean;
  /** kubepods' values (node allocatable) and the QoS tiers; throws when cgroupRoot does not exist. */
  start(kubepods: ResourceConfig, activePods: readonly Pod[], allocatableMemory: bigint): void;
  /** The pod's cgroup as the runtime gets it (cgroup_parent); "" without cgroupsPerQOS. */
  podCgroupParent(pod: Pod): string;
  /** The pod cgroup's path inside a hierarchy, for reading its usage; undefined without cgroupsPerQOS. */
  podCgroupPath(pod: Pod): string | undefined;
  podCgroupExists(pod: Pod): boolean;
  /** EnsureExists: creates the pod cgroup with the pod's values when it is missing; an existing one is kept as it is. */
  ensurePodCgroup(pod: Pod, activePods: readonly Pod[]): void;
  /** SetPodCgroupConfig: writes these values (only the fields set) to the running pod's cgroup. For in-place resize. */
  updatePodCgroup(pod: Pod, resources: ResourceConfig): void;
  /** ResourceConfigForPod with this node's settings (cpuCFSQuota, its period, podPidsLimit). */
  podResourceConfig(pod: Pod): ResourceConfig;
  /** Removes the pod's cgroup; a busy one is kept for retryPendingDestroys. */
  destroyPodCgroup(pod: Pod): void;
  /** The pod cgroups on the host, by UID (GetAllPodsFromCgroups). */
  podCgroups(): Map<string, string>;
  /** Removes the cgroups of pods not in `keep` (the pods that may still run), busy ones left from before included (cleanupOrphanedPodCgroups). */
  cleanupOrphanedPodCgroups(keep: ReadonlySet<string>): void;
  /** Burstable shares follow the active pods (UpdateQOSCgroups). */
  updateQOSCgroups(activePods: readonly Pod[], allocatableMemory: bigint): void;
  /** kubepods' path inside a hierarchy; undefined without cgroupsPerQOS. */
  kubepodsPath(): string | undefined;
}

export function createContainerManager(deps: ContainerManagerDeps, opts: ContainerManagerOptions): ContainerManager {
  const { fs, log } = deps;
  const root = parseCgroupfs(opts.cgroupRoot);
  const kubepods = newCgroupName(root, "kubepods");
  const tiers = { burstable: newCgroupName(kubepods, "burstable"), besteffort: newCgroupName(kubepods, "besteffort") };
  const pathOf = (name: CgroupName) => driverName(opts.driver, name);
  /** Pod cgroups whose removal failed (busy): path → UID. */
  const pendingDestroy = new Map<string, string>();

  function podCgroupName(pod: Pod): CgroupName {
    const suffix = podCgroupSuffix(pod.metadata.uid ?? "");
    switch (computePodQOS(pod)) {
      case "Guaranteed":
        return newCgroupName(kubepods, suffix);
      case "Burstable":
        return newCgroupName(tiers.burstable, suffix);
      case "BestEffort":
        return newCgroupName(tiers.besteffort, suffix);
    }
  }

  function make(name: CgroupName, rc: ResourceConfig): void {
    const path = pathOf(name);
    deps.creator?.create(path);
    fs.create(path, rc);
  }

  function destroyPath(path: string, uid: string): void {
    try {
      deps.creator?.destroy(path);
      fs.destroy(path);
      pendingDestroy.delete(path);
    } catch (err) {
      if (!(err instanceof CgroupError)) throw err;
      pendingDestroy.set(path, uid);
      log.warn("Failed to remove the pod cgroup; retrying at the next housekeeping", { podUID: uid, cgroup: path, err: err.message });
    }
  }

  function updateQOSCgroups(activePods: readonly Pod[], allocatableMemory: bigint): void {
    const values = qosTierValues({ activePods, allocatableMemory, memoryReservePercent: opts.memoryReservePercent, hugePageSizes: opts.hugePageSizes });
    for (const tier of ["burstable", "besteffort"] as const) fs.set(pathOf(tiers[tier]), values[tier]);
  }

  const podResourceConfig = (pod: Pod): ResourceConfig => {
    const rc = resourceConfigForPod(pod, { enforceCPULimits: opts.enforceCPULimits, cpuPeriodUs: opts.cpuPeriodUs });
    if (opts.podPidsLimit > 0n) rc.pidsLimit = opts.podPidsLimit;
    return rc;
  };

  return {
    cgroupsPerQOS: opts.cgroupsPerQOS,
    start(kubepodsValues, activePods, allocatableMemory) {
      if (!opts.cgroupsPerQOS) return;
      const rootPath = pathOf(root);
      if (!fs.exists(rootPath)) throw new CgroupError(`invalid configuration: cgroup-root ${JSON.stringify(opts.cgroupRoot)} doesn't exist`);
      if (fs.exists(pathOf(kubepods))) fs.set(pathOf(kubepods), kubepodsValues);
      else make(kubepods, kubepodsValues);
      for (const tier of ["burstable", "besteffort"] as const) {
        if (!fs.exists(pathOf(tiers[tier]))) make(tiers[tier], {});
      }
      updateQOSCgroups(activePods, allocatableMemory);
    },
    podCgroupParent: (pod) => (opts.cgroupsPerQOS ? pathOf(podCgroupName(pod)) : ""),
    podCgroupPath: (pod) => (opts.cgroupsPerQOS ? pathOf(podCgroupName(pod)) : undefined),
    podCgroupExists: (pod) => opts.cgroupsPerQOS && fs.exists(pathOf(podCgroupName(pod))),
    ensurePodCgroup(pod, activePods) {
      if (!opts.cgroupsPerQOS) return;
      const name = podCgroupName(pod);
      if (fs.exists(pathOf(name))) return;
      // The tier's shares count this pod before its containers compete for CPU.
      try {
        updateQOSCgroups(activePods, 0n);
      } catch (err) {
        log.debug("Failed to update QoS cgroups while syncing pod", { podUID: pod.metadata.uid, err }, 2);
      }
      make(name, podResourceConfig(pod));
    },
    updatePodCgroup(pod, resources) {
      if (!opts.cgroupsPerQOS) return;
      fs.set(pathOf(podCgroupName(pod)), resources);
    },
    podResourceConfig,
    destroyPodCgroup(pod) {
      if (!opts.cgroupsPerQOS) return;
      destroyPath(pathOf(podCgroupName(pod)), pod.metadata.uid ?? "");
    },
    podCgroups() {
      const out = new Map<string, string>();
      if (!opts.cgroupsPerQOS) return out;
      for (const parent of [kubepods, tiers.burstable, tiers.besteffort]) {
        for (const child of fs.children(pathOf(parent))) {
          // The systemd driver names a pod "kubepods-burstable-pod<uid escaped>.slice".
          const last = opts.driver === "systemd" ? (child.replace(/\.slice$/, "").split("-").at(-1) ?? "").replaceAll("_", "-") : child;
          if (!last.startsWith(POD_CGROUP_PREFIX)) continue;
          const uid = last.slice(POD_CGROUP_PREFIX.length);
          out.set(uid, pathOf(newCgroupName(parent, podCgroupSuffix(uid))));
        }
      }
      return out;
    },
    cleanupOrphanedPodCgroups(keep) {
      if (!opts.cgroupsPerQOS) return;
      for (const [uid, path] of this.podCgroups()) {
        if (keep.has(uid)) continue;
        // Left-over processes of a pod nobody runs any more: the kubelet kills them first (at
        // the lowest CPU shares), so the cgroup can go.
        const pids = fs.pids(path);
        if (pids.length > 0) {
          log.info("Killing the processes left in an orphaned pod cgroup", { podUID: uid, cgroup: path, pids: pids.length });
          try {
            fs.set(path, { cpuShares: 2n });
          } catch {
            // the cgroup may be going away already
          }
          for (const pid of pids) {
            try {
              process.kill(pid, "SIGKILL");
            } catch {
              // gone already
            }
          }
        }
        destroyPath(path, uid);
      }
      for (const [path, uid] of pendingDestroy) if (!keep.has(uid)) destroyPath(path, uid);
    },
    updateQOSCgroups(activePods, allocatableMemory) {
      if (!opts.cgroupsPerQOS) return;
      updateQOSCgroups(activePods, allocatableMemory);
    },
    kubepodsPath: () => (opts.cgroupsPerQOS ? pathOf(kubepods) : undefined),
  };
}
