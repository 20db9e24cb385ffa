/**
 * The read side of the pod workers: what other kubelet loops may assume about a pod UID (can it
 * have running containers, may its runtime objects or content be removed). Before the first
 * syncKnownPods every pod could still be starting; afterwards a UID the workers do not know is a
 * pod that is gone. It reads the worker table and changes nothing.
 */
import * as lifecycle from "./worker-state.ts";
import type { WorkerTable } from "./table.ts";
import type { PodWorkers } from "./types.ts";

export type PodQueries = Pick<
  PodWorkers,
  | "isPodKnownTerminated"
  | "couldHaveRunningContainers"
  | "shouldPodBeFinished"
  | "isPodTerminationRequested"
  | "shouldPodContainersBeTerminating"
  | "shouldPodRuntimeBeRemoved"
  | "shouldPodContentBeRemoved"
  | "isPodForMirrorPodTerminatingByFullName"
  | "knownUids"
>;

export function podQueries(table: WorkerTable): PodQueries {
  const { statuses, gate } = table;
  /** The answer from the pod's state, or for an unknown UID whether syncKnownPods ran. */
  const byState = (uid: string, answer: (state: lifecycle.WorkerState) => boolean, unknown: () => boolean) => {
    const status = statuses.get(uid);
    return status ? answer(status.state) : unknown();
  };
  const synced = () => table.podsSynced;
  return {
    isPodKnownTerminated: (uid) => byState(uid, lifecycle.isTerminated, () => false),
    couldHaveRunningContainers: (uid) => byState(uid, (s) => !lifecycle.isTerminated(s), () => !table.podsSynced),
    shouldPodBeFinished: (uid) => byState(uid, (s) => s.kind === "finished", synced),
    isPodTerminationRequested: (uid) => byState(uid, lifecycle.isTerminationRequested, () => false),
    shouldPodContainersBeTerminating: (uid) => byState(uid, lifecycle.containersTerminating, synced),
    shouldPodRuntimeBeRemoved: (uid) => byState(uid, lifecycle.isTerminated, synced),
    shouldPodContentBeRemoved: (uid) => byState(uid, lifecycle.contentRemovable, synced),
    isPodForMirrorPodTerminatingByFullName(fullName) {
      const uid = gate.holder(fullName);
      const status = uid === undefined ? undefined : statuses.get(uid);
      return status !== undefined && status.isTerminationRequested() && !status.isTerminated();
    },
    knownUids: () => [...statuses.keys()],
  };
}
