/**
 * Crash-loop backoff (doBackOff): keyed per pod, container and spec hash. The first restart after
 * an exit goes at once; each later one waits 10 s, 20 s, ... up to 300 s after the last exit; the
 * key is forgotten after 10 minutes without a new backoff (a container that ran that long starts
 * over at 10 s).
 */
import type { Container, Pod } from "../api/index.ts";
import { Backoff, formatGoDuration, type Clock } from "../lib/index.ts";
import { hashContainer, type RuntimePodStatus } from "../container/index.ts";

const CRASHLOOP_INITIAL_MS = 10_000;
const CRASHLOOP_MAX_MS = 300_000;

export function newCrashLoopBackoff(clock: Clock): Backoff {
  return new Backoff(clock, { initialMs: CRASHLOOP_INITIAL_MS, maxMs: CRASHLOOP_MAX_MS, resetAfterMs: 2 * CRASHLOOP_MAX_MS });
}

/** GetStableKey: `<pod>_<ns>_<uid>_<container>_<hash>`. */
function stableKey(pod: Pod, container: Container): string {
  const m = pod.metadata;
  return `${m.name}_${m.namespace}_${m.uid}_${container.name}_${hashContainer(container)}`;
}

/** "name_namespace(uid)", the kubelet's format.Pod. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

export type BackoffDecision = { inBackoff: false } | { inBackoff: true; message: string; expiresAt: number };

/**
 * Whether the container must wait before its next start. When it may start, the backoff grows
 * (measured from the last exit), so the following crash waits longer.
 */
export function doBackOff(backoff: Backoff, pod: Pod, container: Container, podStatus: RuntimePodStatus): BackoffDecision {
  const exited = podStatus.containerStatuses.find((c) => c.name === container.name && c.state === "exited");
  if (!exited) return { inBackoff: false };
  const key = stableKey(pod, container);
  if (backoff.isInBackOffSince(key, exited.finishedAt)) {
    const delay = backoff.get(key);
    return {
      inBackoff: true,
      message: `back-off ${formatGoDuration(delay)} restarting failed container=${container.name} pod=${formatPod(pod)}`,
      expiresAt: exited.finishedAt + delay,
    };
  }
  backoff.next(key, exited.finishedAt);
  return { inBackoff: false };
}
