/**
 * The status manager (pkg/kubelet/status/status_manager.go): the one place that holds the API
 * status bunlet computed for each pod, with a version that moves on every real change. Pod
 * workers write it (setPodStatus, terminatePod); /pods and the apiserver status sync (api-sync.ts,
 * told of every change through onChange) read it. It refuses illegal changes (a finished container coming back), keeps the first startTime
 * and each condition's transition time, and ignores writes that change nothing.
 */
import { isStaticPod, podRef, podUID, type ContainerStatus, type Pod, type PodStatus } from "../api/index.ts";
import { isRestartableInitContainer } from "../container/index.ts";
import { cloneJson, type Clock, type Logger } from "../lib/index.ts";
import { DisruptionTarget, kubeletOwnedConditions, resizeConditionTypes, terminalPhaseReadyConditions } from "./conditions.ts";
import { ContainerStatusUnknown } from "./container-statuses.ts";
import { withTransitionTime } from "./generate.ts";
import { illegalContainerTransition, isPodStatusByKubeletEqual, normalizeStatus } from "./normalize.ts";
import { isPodPhaseTerminal } from "./phase.ts";
import { createResizeConditions, type ResizeConditions } from "./resize-conditions.ts";
import { rfc3339 } from "./time.ts";

export interface StatusManager {
  /** Records the status the pod worker computed (no-op when nothing the kubelet owns changed). */
  setPodStatus(pod: Pod, status: PodStatus): void;
  /** A copy of the current status, if any was set. */
  getPodStatus(uid: string): PodStatus | undefined;
  /** The current status's phase, without a copy: housekeeping and admission ask it for every pod. */
  getPodPhase(uid: string): string | undefined;
  /** The pod's containers are all stopped: every unfinished container becomes terminated. */
  terminatePod(pod: Pod): void;
  /** Forgets the status of every pod not in keep. */
  removeOrphanedStatuses(keep: Set<string>): void;
  deletePodStatus(uid: string): void;
  /** Increases on every recorded change (0 = never set). */
  version(uid: string): number;
  /** When the pod's first status was recorded (versionedPodStatus.at, which later versions keep). */
  statusAt(uid: string): number | undefined;
  /** terminatePod ran: the pod will not change any more. */
  isFinished(uid: string): boolean;
  /** The UIDs with a status. */
  uids(): string[];
  /** Calls listener with the UID after every recorded change (the apiserver status sync). */
  onChange(listener: (uid: string) => void): void;
  /** The pods' PodResizePending / PodResizeInProgress conditions. */
  readonly resizeConditions: ResizeConditions;
}

interface VersionedStatus {
  status: PodStatus;
  version: number;
  podIsFinished: boolean;
  at: number;
}

const terminatedUnknown = {
  exitCode: 137,
  reason: ContainerStatusUnknown,
  message: "The container could not be located when the pod was terminated",
};

export function createStatusManager(deps: { clock: Clock; log: Logger }): StatusManager {
  const statuses = new Map<string, VersionedStatus>();
  const listeners: ((uid: string) => void)[] = [];
  const resizeConditions = createResizeConditions(() => deps.clock.now());

  const update = (pod: Pod, input: PodStatus, force: boolean, finished: boolean) => {
    const uid = podUID(pod);
    const cached = statuses.get(uid);
    const old = cached?.status ?? pod.status ?? {};
    let podIsFinished = finished;
    if (cached?.podIsFinished && !finished && !isStaticPod(pod)) podIsFinished = true;

    const problem = illegalContainerTransition(old, input, pod);
    if (problem !== undefined) {
      deps.log.error("Pod status update refused; keeping the previous status", { pod: podRef(pod), podUID: uid, err: problem });
      return;
    }
    const status = cloneJson(input);
    const now = deps.clock.now();
    // A terminal pod is never ready, whatever the conditions it was computed with said.
    if (isPodPhaseTerminal(status.phase)) {
      for (const forced of terminalPhaseReadyConditions(status.phase!)) {
        const i = status.conditions?.findIndex((c) => c.type === forced.type) ?? -1;
        if (pod.metadata.generation) forced.observedGeneration = pod.metadata.generation;
        if (i >= 0 && status.conditions![i]!.status === "True") status.conditions![i] = forced;
      }
    }
    // The generation observed never goes back (a late sync of an older spec sends no patch).
    if ((old.observedGeneration ?? 0) > (status.observedGeneration ?? 0)) status.observedGeneration = old.observedGeneration;
    status.conditions = status.conditions?.map((c) =>
      (kubeletOwnedConditions.has(c.type) && !resizeConditionTypes.has(c.type)) || c.type === DisruptionTarget ? withTransitionTime(c, old.conditions, now) : c,
    );
    status.startTime = old.startTime || status.startTime || rfc3339(now);
    normalizeStatus(pod, status);

    if (cached && !force && isPodStatusByKubeletEqual(cached.status, status)) return;
    statuses.set(uid, { status, version: (cached?.version ?? 0) + 1, podIsFinished, at: cached?.at ?? now });
    for (const listener of listeners) listener(uid);
  };

  return {
    setPodStatus(pod, status) {
      // The status is of this generation of the pod (CalculatePodStatusObservedGeneration; the gate is GA).
      const generation = pod.metadata.generation ?? 0;
      update(pod, generation ? { ...status, observedGeneration: generation } : status, false, false);
    },

    getPodStatus(uid) {
      const cached = statuses.get(uid);
      return cached ? cloneJson(cached.status) : undefined;
    },
    getPodPhase: (uid) => statuses.get(uid)?.status.phase,

    terminatePod(pod) {
      const cached = statuses.get(podUID(pod));
      const status = cloneJson(cached?.status ?? pod.status ?? {});
      if (hasPodInitialized(pod, status)) {
        for (const cs of status.containerStatuses ?? []) markTerminated(cs);
      }
      for (const cs of initializedContainers(status.initContainerStatuses ?? [])) markTerminated(cs);
      // Static pods keep their phase (kubernetes#116484); any other pod ends terminal.
      if (!isStaticPod(pod) && !isPodPhaseTerminal(status.phase)) status.phase = "Failed";
      update(pod, status, true, true);
    },

    removeOrphanedStatuses(keep) {
      for (const uid of [...statuses.keys()]) {
        if (keep.has(uid)) continue;
        statuses.delete(uid);
        resizeConditions.forget(uid);
      }
    },

    deletePodStatus(uid) {
      statuses.delete(uid);
      resizeConditions.forget(uid);
    },

    resizeConditions,

    version(uid) {
      return statuses.get(uid)?.version ?? 0;
    },

    statusAt(uid) {
      return statuses.get(uid)?.at;
    },

    isFinished(uid) {
      return statuses.get(uid)?.podIsFinished ?? false;
    },

    uids() {
      return [...statuses.keys()];
    },

    onChange(listener) {
      listeners.push(listener);
    },
  };
}

function markTerminated(cs: ContainerStatus): void {
  if (cs.state?.terminated) return;
  cs.state = { terminated: { ...terminatedUnknown } };
}

/**
 * Whether the pod got past its init containers, judged by the status being terminated (the
 * kubelet looks at the apiserver's copy, which bunlet does not have for static pods).
 */
function hasPodInitialized(pod: Pod, status: PodStatus): boolean {
  const initSpecs = pod.spec.initContainers ?? [];
  if (initSpecs.length === 0) return true;
  if ((status.containerStatuses ?? []).some((s) => s.lastState?.terminated !== undefined || s.state?.waiting === undefined)) return true;
  const inits = status.initContainerStatuses ?? [];
  const last = inits.at(-1);
  if (last === undefined) return false;
  const spec = initSpecs.find((c) => c.name === last.name);
  if (spec !== undefined && isRestartableInitContainer(spec)) return last.state?.running !== undefined && last.started === true;
  return last.lastState?.terminated?.exitCode === 0 || last.state?.terminated?.exitCode === 0;
}

/** Init containers up to the last one that ever tried to start (at least the first). */
function initializedContainers(inits: ContainerStatus[]): ContainerStatus[] {
  for (let i = inits.length - 1; i >= 0; i--) {
    const s = inits[i]!;
    if (s.state?.waiting === undefined || s.lastState?.terminated !== undefined) return inits.slice(0, i + 1);
  }
  return inits.slice(0, 1);
}
