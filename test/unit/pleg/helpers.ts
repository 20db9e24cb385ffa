// Builders and scripted collaborators for the PLEG unit tests: a runtime whose answers the test
// sets, a GetContainerEvents source the test drives, and metric readers.
import { create } from "@bufbuild/protobuf";
import { type ContainerEventType, type ContainerState as CriContainerState, PodSandboxState, labels, type ContainerEventResponse } from "../../../src/cri/index.ts";
import { ContainerEventResponseSchema } from "../../../src/cri/testing.ts";
import { Channel } from "../../../src/lib/index.ts";
import { createMetrics, type Metrics } from "../../../src/metrics/index.ts";
import type { ContainerEventSource, PodLister } from "../../../src/pleg/deps.ts";
import type { ContainerState, RuntimePodStatus, RuntimeContainerRef, RuntimePod } from "../../../src/container/index.ts";

export function ref(id: string, state: ContainerState, name = id): RuntimeContainerRef {
  return { id, name, state, createdAt: 0, hash: "", sandboxId: "", image: "" };
}

export function runtimePod(uid: string, containers: RuntimeContainerRef[], sandboxes: RuntimeContainerRef[] = []): RuntimePod {
  return { uid, name: `pod-${uid}`, namespace: "default", containers, sandboxes };
}

export function podStatus(uid: string, over: Partial<RuntimePodStatus> = {}): RuntimePodStatus {
  return { uid, name: `pod-${uid}`, namespace: "default", ips: [], sandboxStatuses: [], containerStatuses: [], ...over };
}

/** A runtime whose pods and statuses the test sets; getPodStatus can be made to fail per pod. */
export class ScriptedRuntime implements PodLister {
  pods: RuntimePod[] = [];
  statuses = new Map<string, RuntimePodStatus>();
  failStatus = new Set<string>();
  failList = false;
  failPod = false;
  listCalls = 0;
  podCalls: string[] = [];
  statusCalls: string[] = [];

  async getPods(): Promise<RuntimePod[]> {
    this.listCalls++;
    if (this.failList) throw new Error("runtime is down");
    return this.pods.map((p) => structuredClone(p));
  }

  async getPod(uid: string): Promise<RuntimePod | undefined> {
    this.podCalls.push(uid);
    if (this.failPod) throw new Error("runtime is down");
    const pod = this.pods.find((p) => p.uid === uid);
    return pod && structuredClone(pod);
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    this.statusCalls.push(uid);
    if (this.failStatus.has(uid)) throw new Error(`status of ${uid} unavailable`);
    return structuredClone(this.statuses.get(uid) ?? podStatus(uid, { name, namespace }));
  }
}

interface StreamHandle {
  channel: Channel<ContainerEventResponse | Error>;
}

/**
 * GetContainerEvents as the test wants it: refused (UNIMPLEMENTED-like error at once) or
 * accepted, in which case the test pushes events into, or breaks, the open stream.
 */
export class ScriptedEventSource implements ContainerEventSource {
  accept = false;
  attempts = 0;
  #open: StreamHandle | undefined;

  get open(): boolean {
    return this.#open !== undefined;
  }

  push(event: ContainerEventResponse): void {
    if (!this.#open) throw new Error("no stream is open");
    this.#open.channel.trySend(event);
  }

  /** Makes the open stream fail. */
  break(err = new Error("stream reset")): void {
    if (!this.#open) throw new Error("no stream is open");
    this.#open.channel.trySend(err);
  }

  getContainerEvents(signal: AbortSignal): AsyncIterable<ContainerEventResponse> {
    this.attempts++;
    const accept = this.accept;
    const handle: StreamHandle = { channel: new Channel(100) };
    if (accept) this.#open = handle;
    const self = this;
    return (async function* () {
      try {
        if (!accept) throw new Error("UNIMPLEMENTED: GetContainerEvents");
        for (;;) {
          const next = await handle.channel.receive({ signal });
          if (next instanceof Error) throw next;
          yield next;
        }
      } finally {
        if (self.#open === handle) self.#open = undefined;
      }
    })();
  }
}

export interface EventSpec {
  type: ContainerEventType;
  containerId: string;
  uid: string;
  createdAtMs: number;
  sandboxId?: string;
  sandboxReady?: boolean;
  ip?: string;
  containers?: { id: string; name: string; state: CriContainerState; createdAtMs?: number; restartCount?: number; hash?: string }[];
}

export function containerEvent(spec: EventSpec): ContainerEventResponse {
  const ms = (t: number) => BigInt(Math.round(t * 1000)) * 1000n;
  return create(ContainerEventResponseSchema, {
    containerId: spec.containerId,
    containerEventType: spec.type,
    createdAt: ms(spec.createdAtMs),
    podSandboxStatus: {
      id: spec.sandboxId ?? "sb1",
      metadata: { name: `pod-${spec.uid}`, namespace: "default", uid: spec.uid, attempt: 0 },
      state: spec.sandboxReady === false ? PodSandboxState.SANDBOX_NOTREADY : PodSandboxState.SANDBOX_READY,
      createdAt: ms(1),
      network: { ip: spec.ip ?? "", additionalIps: [] },
    },
    containersStatuses: (spec.containers ?? []).map((c) => ({
      id: c.id,
      metadata: { name: c.name, attempt: 0 },
      state: c.state,
      createdAt: ms(c.createdAtMs ?? 1),
      labels: { [labels.KubernetesContainerNameLabel]: c.name },
      annotations: {
        [labels.ContainerHashLabel]: c.hash ?? "abc",
        [labels.ContainerRestartCountLabel]: String(c.restartCount ?? 0),
      },
    })),
  });
}

export function testMetrics(): Metrics {
  return createMetrics();
}

/** The value of an unlabelled counter or gauge (or one label set). */
export async function metricValue(metric: { get(): Promise<{ values: { value: number; labels: object }[] }> }, labelSet: Record<string, string> = {}): Promise<number> {
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labelSet).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want));
  return match?.value ?? 0;
}

/** Sample count of a histogram. */
export async function histogramCount(metric: { get(): Promise<{ values: { value: number; metricName?: string }[] }> }): Promise<number> {
  const { values } = await metric.get();
  return values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
}

/** Receives everything buffered on the channel right now. */
export function drain<T>(channel: Channel<T>): T[] {
  const out: T[] = [];
  for (let got = channel.tryReceive(); got; got = channel.tryReceive()) out.push(got.value);
  return out;
}
