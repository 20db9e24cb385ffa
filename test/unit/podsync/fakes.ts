// In-memory stand-ins for the subsystems the kubelet core drives; each records what it was asked.
import { ConfigSourceAnnotationKey, type Pod, type PodStatus } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import type { PodDirs, PodWorkers, Runtime, StatusManager } from "../../../src/podsync/types.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import type { PodWorkType, UpdatePodOptions } from "../../../src/podworkers/index.ts";
import { createStatusGenerator, type StatusGenerator } from "../../../src/status/index.ts";
import { emptyPodStatus, type RuntimePodStatus, type RuntimeContainerStatus, type RuntimePod } from "../../../src/container/index.ts";

export interface ConfigPodOptions {
  uid?: string;
  created?: string;
  hostNetwork?: boolean;
  deleting?: boolean;
  restartPolicy?: "Always" | "OnFailure" | "Never";
  /** The config source; "file" (a static pod) unless told, "api" for an apiserver pod. */
  source?: string;
}

/** A pod as the pod config hands it to the kubelet core: created at a fixed time, from a config source (a static pod unless told). */
export function configPod(name: string, opts: ConfigPodOptions = {}): Pod {
  return makePod({
    name,
    namespace: "default",
    metadata: {
      uid: opts.uid ?? `uid-${name}`,
      creationTimestamp: opts.created ?? "2026-01-01T00:00:00Z",
      annotations: { [ConfigSourceAnnotationKey]: opts.source ?? "file" },
      ...(opts.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: { containers: [{ name: "c", image: "busybox" }], hostNetwork: opts.hostNetwork, restartPolicy: opts.restartPolicy },
  });
}

export function container(name: string, state: RuntimeContainerStatus["state"], id = `${name}-id`): RuntimeContainerStatus {
  return {
    id,
    name,
    state,
    createdAt: 1,
    startedAt: 1,
    finishedAt: 0,
    exitCode: 0,
    reason: "",
    message: "",
    image: "busybox",
    imageRef: "sha256:1",
    hash: "abc",
    restartCount: 0,
    containerType: "container",
    sandboxId: "sb",
    logPath: "",
    annotations: {},
    labels: {},
  };
}

export function podStatus(uid: string, containers: RuntimeContainerStatus[] = []): RuntimePodStatus {
  return { ...emptyPodStatus(uid, "p", "default"), containerStatuses: containers };
}

export function runtimePod(uid: string, name = "orphan"): RuntimePod {
  return { uid, name, namespace: "default", sandboxes: [], containers: [] };
}

export class FakePodWorkers implements PodWorkers {
  updates: UpdatePodOptions[] = [];
  /** What syncKnownPods reports; hasConfig defaults to true, static to false. */
  states = new Map<string, { state: PodWorkType; orphan: boolean; hasConfig?: boolean; static?: boolean }>();
  terminationRequested = new Set<string>();
  knownTerminated = new Set<string>();
  contentRemovable = new Set<string>();
  syncKnownCalls: Pod[][] = [];

  updatePod(options: UpdatePodOptions): void {
    this.updates.push(options);
  }
  syncKnownPods(desired: Pod[]) {
    this.syncKnownCalls.push(desired);
    return new Map([...this.states].map(([uid, s]) => [uid, { hasConfig: true, static: false, ...s }]));
  }
  /** What each observeRuntimePods call was told (runtime pod UIDs). */
  observedRuntime: string[][] = [];
  observeRuntimePods(pods: readonly RuntimePod[]) {
    this.observedRuntime.push(pods.map((p) => p.uid));
  }
  isPodKnownTerminated(uid: string) {
    return this.knownTerminated.has(uid);
  }
  isPodTerminationRequested(uid: string) {
    return this.terminationRequested.has(uid);
  }
  shouldPodContentBeRemoved(uid: string) {
    return this.contentRemovable.has(uid);
  }
  /** The updates as `type:name-or-uid` strings, for compact assertions. */
  summary(): string[] {
    return this.updates.map((u) => `${u.updateType}:${u.pod?.metadata.name ?? u.runningPod?.uid}`);
  }
}

export class FakeRuntime implements Runtime {
  calls: string[] = [];
  syncError: unknown;
  killError: unknown;
  /** What getPodStatus returns after a kill. */
  statusAfterKill: RuntimePodStatus | undefined;
  runtimePods: RuntimePod[] = [];
  getPodsError: unknown;
  killed: { pod?: Pod; runningPod: RuntimePod; grace?: number }[] = [];

  /** Runs inside syncPod (what the real runtime changes while syncing, e.g. its reason cache). */
  onSync: (() => void) | undefined;
  /** The steps syncPod reports: none, as for a pod that needed nothing. */
  syncSteps: Awaited<ReturnType<Runtime["syncPod"]>>["steps"] = [];

  async syncPod(pod: Pod) {
    this.calls.push(`syncPod:${pod.metadata.name}`);
    this.onSync?.();
    return this.syncError === undefined ? { steps: this.syncSteps } : { steps: this.syncSteps, error: this.syncError as Error };
  }
  async killPod(pod: Pod | undefined, runningPod: RuntimePod, opts: { gracePeriodOverride?: number }) {
    const grace = opts.gracePeriodOverride;
    this.calls.push(`killPod:${pod?.metadata.name ?? runningPod.uid}:${grace}`);
    this.killed.push({ pod, runningPod, grace });
    return this.killError === undefined ? { steps: [] } : { steps: [], error: this.killError as Error };
  }
  async getPodStatus(uid: string) {
    this.calls.push(`getPodStatus:${uid}`);
    return this.statusAfterKill ?? podStatus(uid);
  }
  getPodsAll: (boolean | undefined)[] = [];
  async getPods(opts?: { all?: boolean }) {
    this.getPodsAll.push(opts?.all);
    if (this.getPodsError !== undefined) throw this.getPodsError;
    return this.runtimePods;
  }
  forgetPod(uid: string) {
    this.calls.push(`forget:${uid}`);
  }
}

export class FakeStatusManager implements StatusManager {
  statuses = new Map<string, PodStatus>();
  history: { uid: string; phase?: string; message?: string }[] = [];
  terminated: string[] = [];
  deleted: string[] = [];
  kept: Set<string>[] = [];

  setPodStatus(pod: Pod, status: PodStatus) {
    this.statuses.set(pod.metadata.uid!, status);
    this.history.push({ uid: pod.metadata.uid!, phase: status.phase, ...(status.message ? { message: status.message } : {}) });
  }
  getPodStatus(uid: string) {
    return this.statuses.get(uid);
  }
  getPodPhase(uid: string) {
    return this.statuses.get(uid)?.phase;
  }
  terminatePod(pod: Pod) {
    this.terminated.push(pod.metadata.uid!);
  }
  removeOrphanedStatuses(keep: Set<string>) {
    this.kept.push(keep);
    for (const uid of [...this.statuses.keys()]) if (!keep.has(uid)) this.statuses.delete(uid);
  }
  deletePodStatus(uid: string) {
    this.deleted.push(uid);
    this.statuses.delete(uid);
  }
}

export class FakePodDirs implements PodDirs {
  dirs = new Set<string>();
  /** UIDs whose removal fails (a mount is still there). */
  stuck = new Set<string>();
  async make(uid: string) {
    this.dirs.add(uid);
  }
  async list() {
    return [...this.dirs];
  }
  async remove(uid: string) {
    if (this.stuck.has(uid)) throw new Error(`pod directory ${uid} still has mounts`);
    this.dirs.delete(uid);
  }
}

/**
 * The agent's own status generator (createStatusGenerator, the pure generateAPIPodStatus as wired
 * in kubelet/wire-pods.ts) with fixed node facts, no probe results, and the status manager's last
 * status as the old one: the phase follows restartPolicy, init containers and sidecars exactly as
 * in the agent, so a test cannot pass on a status the kubelet never reports. `waitingReason`
 * stands in for the runtime manager's reason cache (none unless told).
 */
export function statusGenerator(
  statusManager: Pick<StatusManager, "getPodStatus">,
  waitingReason: (uid: string, containerName: string) => { reason: string; message: string } | undefined = () => undefined,
): StatusGenerator {
  return createStatusGenerator({
    statusManager,
    waitingReason,
    probeResult: () => () => undefined,
    hostIPs: ["10.0.0.1"],
    clock: new FakeClock(Date.UTC(2026, 0, 1)),
  });
}
