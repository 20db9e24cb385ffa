/**
 * The read side of the pod workers: what other kubelet loops may assume about a pod UID (can it
 * have running containers, may its runtime objects or content be removed). Before the first
 * syncKnownPods every pod could still be starting; afterwards a UID the workers do not know is a
 * pod that is gone.
 */
import type { StaticPodStartGate } from "./static-pods.ts";
import type { PodSyncStatus } from "./sync-status.ts";

export abstract class PodQueries {
  protected readonly statuses: Map<string, PodSyncStatus>;
  protected readonly gate: StaticPodStartGate;
  /** syncKnownPods ran once: every desired pod has been handed to updatePod. */
  protected podsSynced = false;

  constructor(statuses: Map<string, PodSyncStatus>, gate: StaticPodStartGate) {
    this.statuses = statuses;
    this.gate = gate;
  }

  isPodKnownTerminated(uid: string): boolean {
    return this.statuses.get(uid)?.isTerminated() ?? false;
  }

  couldHaveRunningContainers(uid: string): boolean {
    const status = this.statuses.get(uid);
    return status ? !status.isTerminated() : !this.podsSynced;
  }

  shouldPodBeFinished(uid: string): boolean {
    const status = this.statuses.get(uid);
    return status ? status.isFinished() : this.podsSynced;
  }

  isPodTerminationRequested(uid: string): boolean {
    return this.statuses.get(uid)?.isTerminationRequested() ?? false;
  }

  shouldPodContainersBeTerminating(uid: string): boolean {
    const status = this.statuses.get(uid);
    return status ? status.startedTerminating : this.podsSynced;
  }

  shouldPodRuntimeBeRemoved(uid: string): boolean {
    const status = this.statuses.get(uid);
    return status ? status.isTerminated() : this.podsSynced;
  }

  shouldPodContentBeRemoved(uid: string): boolean {
    const status = this.statuses.get(uid);
    return status ? status.evicted || (status.deleted && status.isTerminated()) : this.podsSynced;
  }

  isPodForMirrorPodTerminatingByFullName(fullName: string): boolean {
    const uid = this.gate.holder(fullName);
    const status = uid === undefined ? undefined : this.statuses.get(uid);
    return status !== undefined && status.isTerminationRequested() && !status.isTerminated();
  }

  knownUids(): string[] {
    return [...this.statuses.keys()];
  }
}
