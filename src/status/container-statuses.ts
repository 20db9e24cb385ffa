/**
 * API container statuses from the runtime's view (kubelet_pods.go convertToAPIContainerStatuses):
 * each spec container starts as Waiting (ContainerCreating, or PodInitializing when the pod has
 * init containers), the newest runtime container sets State and the one before it LastState, a
 * container that vanished after running counts as terminated with ContainerStatusUnknown, and a
 * container about to be restarted shows the reason of the last failed start (CrashLoopBackOff,
 * ErrImagePull, ...) from the runtime manager's reason cache.
 */
import type { Container, ContainerState, ContainerStatus, Pod, ResourceRequirements } from "../api/index.ts";
import { allocatedResources, containerStatusResources } from "./container-resources.ts";
import { findContainerStatus, shouldContainerBeRestarted, type RuntimeContainerStatus, type RuntimePodStatus } from "../container/index.ts";
import { rfc3339 } from "./time.ts";
import { cloneJson } from "../lib/index.ts";

const ContainerCreating = "ContainerCreating";
const PodInitializing = "PodInitializing";
export const ContainerStatusUnknown = "ContainerStatusUnknown";

export type WaitingReason = (containerName: string) => { reason: string; message: string } | undefined;

export interface ConvertOptions {
  pod: Pod;
  podStatus: RuntimePodStatus;
  /** The statuses last reported for these containers (status manager, else pod.status). */
  previous: ContainerStatus[] | undefined;
  containers: Container[];
  hasInitContainers: boolean;
  isInit: boolean;
  waitingReason: WaitingReason;
  /** Prefix of containerID, e.g. "containerd". */
  runtimeName: string;
  /** The actuated resources of a container (in-place resize); given, statuses carry resources. */
  actuated?: (containerName: string) => ResourceRequirements | undefined;
}

export function convertToAPIContainerStatuses(opts: ConvertOptions): ContainerStatus[] {
  const { pod, podStatus, containers } = opts;
  const oldStatuses = new Map((opts.previous ?? []).map((s) => [s.name, s]));
  const defaultState: ContainerState = { waiting: { reason: opts.hasInitContainers ? PodInitializing : ContainerCreating } };

  const statuses = new Map<string, ContainerStatus>();
  for (const container of containers) {
    const old = oldStatuses.get(container.name);
    if (old?.state?.terminated) {
      statuses.set(container.name, cloneJson(old));
      continue;
    }
    const status: ContainerStatus = { name: container.name, state: cloneJson(defaultState), ready: false, restartCount: 0, image: container.image ?? "", imageID: "" };
    if (old) {
      status.restartCount = old.restartCount;
      if (old.lastState) status.lastState = cloneJson(old.lastState);
    }
    statuses.set(container.name, status);
  }

  // A container that ran but is gone from the runtime did stop, even if its exit is lost.
  const inRuntime = new Set(podStatus.containerStatuses.map((c) => c.name));
  for (const container of containers) {
    const old = oldStatuses.get(container.name);
    if (inRuntime.has(container.name) || old?.state?.running === undefined) continue;
    const status = statuses.get(container.name)!;
    if (status.state?.waiting?.reason !== defaultState.waiting!.reason || status.lastState?.terminated) continue;
    status.lastState = {
      terminated: {
        exitCode: 137,
        reason: ContainerStatusUnknown,
        message: "The container could not be located when the pod was deleted.  The container used to be Running",
      },
    };
    if (pod.metadata.deletionTimestamp === undefined) status.restartCount += 1;
  }

  // The newest runtime container gives State, the one before it LastState.
  const newestFirst = [...podStatus.containerStatuses].sort((a, b) => b.createdAt - a.createdAt);
  const seen = new Map<string, number>();
  for (const rc of newestFirst) {
    const count = seen.get(rc.name) ?? 0;
    if (!statuses.has(rc.name) || count >= 2) continue;
    const converted = convertContainerStatus(rc, oldStatuses.get(rc.name), opts.runtimeName);
    const spec = containers.find((c) => c.name === rc.name);
    if (count === 0 && opts.actuated && spec) {
      // The pod carries the allocated resources (the pod worker syncs the allocated pod).
      converted.resources = containerStatusResources(spec, converted, rc, oldStatuses.get(rc.name), opts.actuated(rc.name));
      const allocated = allocatedResources(spec);
      if (allocated) converted.allocatedResources = allocated;
    }
    if (count === 0) statuses.set(rc.name, converted);
    else statuses.get(rc.name)!.lastState = converted.state;
    seen.set(rc.name, count + 1);
  }

  // A container the next sync will (re)start waits, with the reason its last start failed.
  for (const container of containers) {
    if (opts.isInit) {
      const newest = findContainerStatus(podStatus, container.name);
      if (newest?.state === "exited" && newest.exitCode === 0) continue;
    }
    if (!shouldContainerBeRestarted(container, pod, podStatus)) continue;
    const reason = opts.waitingReason(container.name);
    if (reason === undefined) continue;
    const status = statuses.get(container.name)!;
    if (status.state?.terminated) status.lastState = status.state;
    status.state = { waiting: omitEmpty({ reason: reason.reason, message: reason.message }) };
  }

  if (opts.isInit) return containers.map((c) => statuses.get(c.name)!);
  return [...statuses.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function convertContainerStatus(rc: RuntimeContainerStatus, old: ContainerStatus | undefined, runtimeName: string): ContainerStatus {
  const containerID = `${runtimeName}://${rc.id}`;
  const status: ContainerStatus = { name: rc.name, state: {}, ready: false, restartCount: rc.restartCount, image: rc.image, imageID: rc.imageRef, containerID };
  switch (rc.state) {
    case "running":
      status.state = { running: omitEmpty({ startedAt: rfc3339(rc.startedAt) }) };
      break;
    case "created":
      // created but not started: waiting to run
      status.state = { waiting: {} };
      break;
    case "exited":
      status.state = {
        terminated: omitEmpty({
          exitCode: rc.exitCode,
          reason: rc.reason,
          message: rc.message,
          startedAt: rfc3339(rc.startedAt),
          finishedAt: rfc3339(rc.finishedAt),
          containerID,
        }),
      };
      break;
    case "unknown":
      if (old?.state?.running) {
        // It ran and the runtime lost it: report an error exit rather than "never ran".
        status.state = {
          terminated: { exitCode: 137, reason: ContainerStatusUnknown, message: "The container could not be located when the pod was terminated" },
        };
        status.restartCount = old.restartCount + 1;
      } else status.state = { waiting: {} };
      break;
  }
  return status;
}

/** Drops undefined and empty-string fields, as the API's omitempty does. */
function omitEmpty<T extends object>(obj: T): T {
  const out = { ...obj } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (v === undefined || v === "") delete out[k];
  return out as T;
}
