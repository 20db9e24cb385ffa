/**
 * The QoS container manager's periodic update (qos_container_manager_linux.go Start): every
 * periodicQOSCgroupUpdateInterval (1 min) the burstable tier's shares (and, with QOSReserved,
 * the memory limits of the tiers) are set again from the active pods. A failed update is logged
 * as the kubelet logs it and the next minute tries again; the loop ends when `signal` aborts.
 */
import type { Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { ContainerManager } from "./manager.ts";

/** periodicQOSCgroupUpdateInterval. */
export const QOS_UPDATE_INTERVAL_MS = 60_000;

export interface QOSUpdateDeps {
  cm: Pick<ContainerManager, "updateQOSCgroups">;
  activePods: () => Pod[];
  /** The node's allocatable memory, which QOSReserved's memory limits are a share of. */
  allocatableMemory: bigint;
  clock: Clock;
  log: Logger;
}

export async function runQOSUpdates(deps: QOSUpdateDeps, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      await deps.clock.sleep(QOS_UPDATE_INTERVAL_MS, signal);
    } catch {
      return;
    }
    try {
      deps.cm.updateQOSCgroups(deps.activePods(), deps.allocatableMemory);
    } catch (err) {
      deps.log.info("Failed to reserve QoS requests", { err });
    }
  }
}
