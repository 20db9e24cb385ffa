/**
 * The events hub behind GetContainerEvents. Each state change becomes one ContainerEventResponse
 * built at that moment, as containerd 1.7's generateAndSendContainerEvent does: the container id
 * (the sandbox id for sandbox changes), the type, a ns timestamp, the full status of the sandbox
 * (absent once the sandbox is deleted) and the statuses of all its containers. Unlike containerd
 * 1.7, which feeds one shared channel, every open stream gets every event.
 */
import { create } from "@bufbuild/protobuf";
import { ContainerEventResponseSchema, type ContainerEventResponse, type ContainerEventType } from "../../src/cri/index.ts";
import { toContainerStatus, toPodSandboxStatus } from "./convert.ts";
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

  readonly #waiters = new Set<() => void>();

  /** Adds a sink; the returned function removes it. */
  subscribe(sink: EventSink): () => void {
    this.#sinks.add(sink);
    for (const wake of [...this.#waiters]) wake();
    return () => this.#sinks.delete(sink);
  }

  /** Resolves once at least `n` streams are open (tests wait for the agent's stream before acting). */
  whenSubscribers(n: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.#sinks.size < n) return;
        cleanup();
        resolve();
      };
      const onAbort = () => {
        cleanup();
        reject(signal?.reason);
      };
      const cleanup = () => {
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(check);
      check();
    });
  }

  publish(event: ContainerEventResponse): void {
    this.history.push(event);
    for (const sink of [...this.#sinks]) sink(event);
  }
}
