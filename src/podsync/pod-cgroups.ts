/**
 * The pod cgroups as the pod syncer and housekeeping use them, from the container manager: made
 * with the values of the pod among the active pods (the burstable tier is sized from them),
 * removed once the pod's containers are gone, and orphans cleaned up. Without cgroupsPerQOS there
 * are none, and pods get the runtime's default cgroup.
 */
import type { Pod } from "../api/index.ts";
import type { ContainerManager } from "../cm/index.ts";
import type { PodCgroups } from "./pod-syncer.ts";

export type PodCgroupManager = Pick<ContainerManager, "cgroupsPerQOS" | "podCgroupExists" | "ensurePodCgroup" | "destroyPodCgroup" | "cleanupOrphanedPodCgroups">;

export function podCgroupsOf(cm: PodCgroupManager | undefined, activePods: () => Pod[]): (PodCgroups & { cleanupOrphaned(keep: ReadonlySet<string>): void }) | undefined {
  if (!cm?.cgroupsPerQOS) return undefined;
  return {
    exists: (pod) => cm.podCgroupExists(pod),
    ensure: (pod) => cm.ensurePodCgroup(pod, activePods()),
    destroy: (pod) => cm.destroyPodCgroup(pod),
    cleanupOrphaned: (keep) => cm.cleanupOrphanedPodCgroups(keep),
  };
}
