/**
 * The periodic container GC (the kubelet's ContainerGCPeriod loop): every minute the runtime
 * manager removes dead containers beyond the per-pod limit and everything of pods that are gone.
 * A pod counts as gone only once all sources are ready, no source wants it, and its worker says
 * its content may be removed; before that a freshly restarted bunlet could not tell orphans from
 * pods it has not been told about yet.
 */
import { delay, runEvery, type Clock, type Logger } from "../lib/index.ts";

/** ContainerGCPeriod. */
const CONTAINER_GC_PERIOD_MS = 60_000;

export interface ContainerGCDeps {
  garbageCollect(isPodGone: (uid: string) => boolean): Promise<void>;
  sourcesReady(): boolean;
  isDesired(uid: string): boolean;
  shouldPodContentBeRemoved(uid: string): boolean;
  clock: Clock;
  log: Logger;
}

/** Collects every minute, the first time one minute after start, until the signal aborts. */
export async function runContainerGC(deps: ContainerGCDeps, signal: AbortSignal): Promise<void> {
  const { clock, log } = deps;
  if (!(await delay(clock, CONTAINER_GC_PERIOD_MS, signal))) return;
  const isPodGone = (uid: string) => deps.sourcesReady() && !deps.isDesired(uid) && deps.shouldPodContentBeRemoved(uid);
  await runEvery(
    clock,
    () => CONTAINER_GC_PERIOD_MS,
    signal,
    () => deps.garbageCollect(isPodGone),
    (err) => log.error("Container garbage collection failed; retrying in a minute", { err }),
  );
}
