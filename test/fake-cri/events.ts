/**
 * The events hub behind GetContainerEvents. Each state change becomes one ContainerEventResponse
 * built at that moment, as containerd 1.7's generateAndSendContainerEvent does: the container id
 * (the sandbox id for sandbox changes), the type, a ns timestamp, the full status of the sandbox
 * (absent once the sandbox is deleted) and the statuses of all its containers. Unlike containerd
 * 1.7, which feeds one shared channel, every open stream gets every event.
 */
import { create } from "@bufbuild/protobuf";
import { GrpcCode, type ContainerEventResponse, type ContainerEventType } from "../../src/cri/index.ts";
import { ContainerEventResponseSchema } from "../../src/cri/testing.ts";
import { toContainerStatus, toPodSandboxStatus } from "./convert.ts";
import { Condition } from "./condition.ts";
import type { StreamSink } from "./server.ts";
import type { FakeStore } from "./store.ts";

/** Test-controlled behaviour of GetContainerEvents, read at every stream open and every event. */
export interface EventsControl {
  /** Answer GetContainerEvents with UNIMPLEMENTED, as containerd 1.6 does. */
  unimplemented: boolean;
  /** Close each stream with UNAVAILABLE right after it delivered this many events. */
  dropAfter?: number;
}

export type EventSink = (event: ContainerEventResponse) => void;

export function buildEvent(store: FakeStore, containerId: string, sandboxId: string, type: ContainerEventType, createdAt: bigint): ContainerEventResponse {
  const sandbox = store.sandboxes.get(sandboxId);
  return create(ContainerEventResponseSchema, {
    containerId,
    containerEventType: type,
    createdAt,
    podSandboxStatus: sandbox ? toPodSandboxStatus(sandbox) : undefined,
    containersStatuses: store.containersOf(sandboxId).map((c) => toContainerStatus(c, store.images)),
  });
}

export class EventHub {
  readonly #sinks = new Set<EventSink>();
  /** Every event published, whether or not a stream was open, oldest first. */
  readonly history: ContainerEventResponse[] = [];

  get subscribers(): number {
    return this.#sinks.size;
  }

  readonly #changed = new Condition();

  /** Adds a sink; the returned function removes it. */
  subscribe(sink: EventSink): () => void {
    this.#sinks.add(sink);
    this.#changed.notify();
    return () => this.#sinks.delete(sink);
  }

  /** Resolves once at least `n` streams are open (tests wait for the agent's stream before acting). */
  whenSubscribers(n: number, signal?: AbortSignal): Promise<void> {
    return this.#changed.until(() => this.#sinks.size >= n, signal);
  }

  publish(event: ContainerEventResponse): void {
    this.history.push(event);
    for (const sink of [...this.#sinks]) sink(event);
  }
}

/**
 * Serves one GetContainerEvents stream: UNIMPLEMENTED when the test says so, otherwise every
 * published event until the client leaves, the listener closes, or `dropAfter` events were sent
 * (then the stream ends with UNAVAILABLE, like a runtime dropping it).
 */
export function serveEvents(hub: EventHub, control: EventsControl, sink: StreamSink): void {
  if (control.unimplemented) return sink.fail(GrpcCode.UNIMPLEMENTED, "method GetContainerEvents not implemented");
  let sent = 0;
  const dropIfDue = (): boolean => {
    if (control.dropAfter === undefined || sent < control.dropAfter) return false;
    unsubscribe();
    sink.fail(GrpcCode.UNAVAILABLE, `fake CRI: event stream dropped after ${sent} events`);
    return true;
  };
  const unsubscribe = hub.subscribe((event) => {
    sink.write(event);
    sent++;
    dropIfDue();
  });
  sink.signal.addEventListener("abort", unsubscribe, { once: true });
  dropIfDue();
}
