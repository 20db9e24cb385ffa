/**
 * The generic PLEG's plan step (pkg/kubelet/pleg/generic.go): given a pod as the previous and the
 * current relist saw it, which lifecycle events does one container (or sandbox) produce. Pure.
 */
import type { ContainerState, RuntimeContainerRef, RuntimePod } from "../container/index.ts";
import type { PodLifecycleEvent } from "./types.ts";

/** The runtime states plus "non-existent", which completes the transition table. */
export type PlegContainerState = "running" | "exited" | "unknown" | "non-existent";

/** The kubelet does not use "created" yet, so it reads as unknown. */
function convertState(state: ContainerState): PlegContainerState {
  switch (state) {
    case "running":
      return "running";
    case "exited":
      return "exited";
    case "created":
    case "unknown":
      return "unknown";
  }
}

/** The state table: only a change of state yields events; the new state decides which. */
export function generateEvents(
  podId: string,
  cid: string,
  oldState: PlegContainerState,
  newState: PlegContainerState,
): PodLifecycleEvent[] {
  if (oldState === newState) return [];
  const event = (type: PodLifecycleEvent["type"]): PodLifecycleEvent => ({ id: podId, type, data: cid });
  switch (newState) {
    case "running":
      return [event("ContainerStarted")];
    case "exited":
      return [event("ContainerDied")];
    case "unknown":
      return [event("ContainerChanged")];
    case "non-existent":
      // A container that was already reported dead only needs its removal reported.
      return oldState === "exited" ? [event("ContainerRemoved")] : [event("ContainerDied"), event("ContainerRemoved")];
  }
}

function findRef(pod: RuntimePod | undefined, cid: string): RuntimeContainerRef | undefined {
  if (!pod) return undefined;
  return pod.containers.find((c) => c.id === cid) ?? pod.sandboxes.find((s) => s.id === cid);
}

function getContainerState(pod: RuntimePod | undefined, cid: string): PlegContainerState {
  const ref = findRef(pod, cid);
  return ref ? convertState(ref.state) : "non-existent";
}

/** The events one container produces between the old and the new view of its pod. */
export function computeEvents(oldPod: RuntimePod | undefined, newPod: RuntimePod | undefined, cid: string): PodLifecycleEvent[] {
  const podId = oldPod?.uid ?? newPod?.uid ?? "";
  return generateEvents(podId, cid, getContainerState(oldPod, cid), getContainerState(newPod, cid));
}

/** Ids of every container and sandbox in either view, each once; sandboxes count as containers. */
export function containerIdsOf(...pods: (RuntimePod | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const pod of pods) {
    if (!pod) continue;
    for (const c of pod.containers) ids.add(c.id);
    for (const s of pod.sandboxes) ids.add(s.id);
  }
  return [...ids];
}

/** All events of one pod between two relists, in container order. */
export function computePodEvents(oldPod: RuntimePod | undefined, newPod: RuntimePod | undefined): PodLifecycleEvent[] {
  return containerIdsOf(oldPod, newPod).flatMap((cid) => computeEvents(oldPod, newPod, cid));
}
