/**
 * The pod startup SLI (pkg/kubelet/util/pod_startup_latency_tracker.go): for each API pod first
 * seen without a start time (so not one adopted after a restart) and not unschedulable, the time
 * from its creationTimestamp to the moment bunlet sees, through its own watch, the status in which
 * every container has started. kubelet_pod_start_total_duration_seconds gets that time,
 * kubelet_pod_start_sli_duration_seconds the same less the time spent pulling images (overlapping
 * pulls counted once) and running init containers, unless the pod is stateful (mounts a volume other
 * than a Secret, ConfigMap, downward API, emptyDir or projected one). The first pod off the host
 * network sets kubelet_first_network_pod_start_sli_duration_seconds. The moments come from four
 * places: the apiserver source (observedPodOnWatch), the image puller, the runtime's init
 * containers and the status sync (recordStatusUpdated, after a patch the apiserver accepted).
 * Beyond the kubelet: when the watch shows the started status before the patch is answered, that
 * watch time is used once the answer comes (the kubelet drops that event and may never record).
 */
import type { Pod } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";

export interface StartupLatencyMetrics {
  podStartSLIDuration: { observe(seconds: number): void };
  podStartTotalDuration: { observe(seconds: number): void };
  firstNetworkPodStartSLIDuration: { set(seconds: number): void };
}

interface PerPodState {
  pullSessions: { start: number; end: number }[];
  pullStarts: number[];
  initRuntimeMs: number;
  currentInitStart: number | undefined;
  observedRunningAt: number | undefined;
  /** When the watch first showed every container started, if that came before the patch's answer. */
  watchedRunningAt: number | undefined;
  recorded: boolean;
}

/** hasPodStartedSLO: every container has been started at least once. */
function hasStarted(pod: Pod): boolean {
  return (pod.status?.containerStatuses ?? []).every((cs) => cs.state?.running?.startedAt);
}

function isStateful(pod: Pod): boolean {
  return (pod.spec.volumes ?? []).some((v) => !v.secret && !v.configMap && !v.downwardAPI && !v.emptyDir && !v.projected);
}

function isUnschedulable(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "PodScheduled" && c.status === "False");
}

/** calculateImagePullingTime: the union of the finished pull sessions, in ms. */
export function imagePullingMs(sessions: readonly { start: number; end: number }[]): number {
  let total = 0;
  let currentEnd = -Infinity;
  for (const s of sessions) {
    if (s.start > currentEnd) {
      total += s.end - s.start;
      currentEnd = s.end;
    } else if (s.end > currentEnd) {
      total += s.end - currentEnd;
      currentEnd = s.end;
    }
  }
  return total;
}

export class PodStartupLatencyTracker {
  readonly #pods = new Map<string, PerPodState>();
  readonly #excluded = new Set<string>();
  #firstNetworkPodSeen = false;

  constructor(private readonly deps: { clock: Clock; log: Logger; metrics: StartupLatencyMetrics }) {}

  observedPodOnWatch(pod: Pod, when: number): void {
    const uid = pod.metadata.uid ?? "";
    const phase = pod.status?.phase;
    if (phase === "Failed" || phase === "Succeeded") {
      this.#pods.delete(uid);
      return;
    }
    const state = this.#pods.get(uid);
    if (state === undefined) {
      if (this.#excluded.has(uid) || pod.status?.startTime) return;
      if (isUnschedulable(pod)) this.#excluded.add(uid);
      else this.#pods.set(uid, { pullSessions: [], pullStarts: [], initRuntimeMs: 0, currentInitStart: undefined, observedRunningAt: undefined, watchedRunningAt: undefined, recorded: false });
      return;
    }
    if (isUnschedulable(pod)) {
      this.#pods.delete(uid);
      this.#excluded.add(uid);
      return;
    }
    if (state.recorded || !hasStarted(pod)) return;
    if (state.observedRunningAt === undefined) {
      // The watch brought bunlet's status before the patch's answer did (the two race): the
      // kubelet would skip this event and wait for another that may never come; bunlet keeps its
      // time and records it once the patch is answered.
      state.watchedRunningAt ??= when;
      return;
    }
    this.#record(pod, state, when);
  }

  #record(pod: Pod, state: PerPodState, when: number): void {
    const totalMs = when - Date.parse(pod.metadata.creationTimestamp ?? "");
    if (!Number.isFinite(totalMs)) return;
    const pullingMs = imagePullingMs(state.pullSessions);
    const sliMs = totalMs - pullingMs - state.initRuntimeMs;
    const stateful = isStateful(pod);
    this.deps.log.info("Observed pod startup duration", {
      pod: { name: pod.metadata.name, namespace: pod.metadata.namespace },
      podStartSLOduration: sliMs / 1000,
      podStartE2EDuration: totalMs / 1000,
      totalImagesPullingTime: pullingMs / 1000,
      totalInitContainerRuntime: state.initRuntimeMs / 1000,
      isStatefulPod: stateful,
    });
    this.deps.metrics.podStartTotalDuration.observe(totalMs / 1000);
    if (!stateful) {
      this.deps.metrics.podStartSLIDuration.observe(sliMs / 1000);
      if (!pod.spec.hostNetwork && !this.#firstNetworkPodSeen) {
        this.deps.metrics.firstNetworkPodStartSLIDuration.set(sliMs / 1000);
        this.#firstNetworkPodSeen = true;
      }
    }
    state.recorded = true;
  }

  recordImageStartedPulling(uid: string): void {
    this.#pods.get(uid)?.pullStarts.push(this.deps.clock.now());
  }

  /** Closes the oldest open pull session of the pod. */
  recordImageFinishedPulling(uid: string): void {
    const state = this.#pods.get(uid);
    const start = state?.pullStarts.shift();
    if (state && start !== undefined) state.pullSessions.push({ start, end: this.deps.clock.now() });
  }

  recordInitContainerStarted(uid: string, at: number): void {
    const state = this.#pods.get(uid);
    if (state) state.currentInitStart = at;
  }

  recordInitContainerFinished(uid: string, finishedAt: number): void {
    const state = this.#pods.get(uid);
    if (!state || state.currentInitStart === undefined) return;
    if (finishedAt > state.currentInitStart) state.initRuntimeMs += finishedAt - state.currentInitStart;
    state.currentInitStart = undefined;
  }

  /** The apiserver accepted a status of the pod: the first one with every container started is the running moment. */
  recordStatusUpdated(pod: Pod): void {
    const state = this.#pods.get(pod.metadata.uid ?? "");
    if (!state || state.recorded || state.observedRunningAt !== undefined) return;
    if (!hasStarted(pod)) return;
    state.observedRunningAt = this.deps.clock.now();
    if (state.watchedRunningAt !== undefined) this.#record(pod, state, state.watchedRunningAt);
  }

  deletePodStartupState(uid: string): void {
    this.#pods.delete(uid);
    this.#excluded.delete(uid);
  }
}
