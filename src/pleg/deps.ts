/**
 * What the PLEG needs from the rest of bunlet, defined here by the consumer: the runtime manager
 * (src/runtime) satisfies PodLister, the CRI client (or the fake in tests) the event source.
 */
import type { ContainerEventResponse } from "../cri/index.ts";
import type { Metrics } from "../metrics/index.ts";
import type { RuntimePodStatus, RuntimePod } from "../container/index.ts";

export interface PodLister {
  /** Every pod the runtime holds, exited containers included (the kubelet's GetPods(all=true)). */
  getPods(opts: { all?: boolean; signal: AbortSignal }): Promise<RuntimePod[]>;
  /** One pod as getPods would list it; undefined when the runtime has nothing of it (GetPod). */
  getPod(uid: string, opts: { signal: AbortSignal }): Promise<RuntimePod | undefined>;
  getPodStatus(uid: string, name: string, namespace: string, opts: { signal: AbortSignal }): Promise<RuntimePodStatus>;
}

/** One GetContainerEvents server stream; it ends or throws when the stream fails. */
export interface ContainerEventSource {
  getContainerEvents(signal: AbortSignal): AsyncIterable<ContainerEventResponse>;
}

/** The metrics the PLEG writes (kubelet names, plus bunlet_pleg_mode). */
export type PlegMetrics = Pick<
  Metrics,
  | "plegRelistDuration"
  | "plegPodRelistDuration"
  | "plegRelistInterval"
  | "plegDiscardEvents"
  | "plegLastSeen"
  | "eventedPlegConnectionErrors"
  | "eventedPlegConnectionSuccess"
  | "eventedPlegConnectionLatency"
  | "plegMode"
  | "runningPods"
  | "runningContainers"
>;

/** Adapts the CRI client's RuntimeService to an event source. */
export function criEventSource(cri: {
  runtime: { getContainerEvents(req?: object, opts?: { signal?: AbortSignal }): AsyncIterable<ContainerEventResponse> };
}): ContainerEventSource {
  return { getContainerEvents: (signal) => cri.runtime.getContainerEvents({}, { signal }) };
}
