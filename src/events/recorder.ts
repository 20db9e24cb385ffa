/**
 * The kubelet's event pipeline (client-go tools/record): the recorder makes a core/v1 Event
 * (source kubelet on this host, reportingComponent kubelet, reportingInstance the host), logs it
 * at --v=3 as the kubelet's structured-logging watcher does, and queues it without ever blocking
 * the caller (1000 queued at most; more are dropped, as the broadcaster's DropIfChannelFull). One
 * loop correlates each event and writes it to the sink: created, or patched when it was seen
 * before, up to 12 tries 10 s apart (the first wait randomized) while the apiserver cannot be
 * reached; an answer that rejects the event is final. Without a sink (no --kubeconfig) events
 * are only logged.
 */
import type { Event as CoreEvent, ObjectReference } from "kubernetes-types/core/v1";
import { Channel, isAbortError, type Clock, type Logger } from "../lib/index.ts";
import { EventCorrelator } from "./correlator.ts";
import { formatEventTime } from "./time.ts";

const MAX_QUEUED_EVENTS = 1000;
const MAX_TRIES_PER_EVENT = 12;
const SLEEP_BETWEEN_TRIES_MS = 10_000;

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  /**
   * Records that `reason` happened to the object; never blocks and never throws. `annotations`
   * become the event's own (AnnotatedEventf).
   */
  event(ref: ObjectReference, type: EventType, reason: string, message: string, annotations?: Record<string, string>): void;
}

/** Where events go: the apiserver's events resource. */
export interface EventSink {
  create(event: CoreEvent, signal: AbortSignal): Promise<CoreEvent>;
  patch(event: CoreEvent, patch: object, signal: AbortSignal): Promise<CoreEvent>;
}

/** What a sink failure means: `retry` while the apiserver cannot be reached, `notFound` for a patch of a deleted event. */
export type SinkFailure = "retry" | "notFound" | "alreadyExists" | "rejected";

export interface EventBroadcasterDeps {
  clock: Clock;
  log: Logger;
  random: () => number;
  sink?: { sink: EventSink; classify(err: unknown): SinkFailure };
}

export interface EventSource {
  component: string;
  host: string;
}

export interface EventBroadcaster {
  readonly recorder: EventRecorder;
  /** Writes queued events to the sink until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export function createEventBroadcaster(deps: EventBroadcasterDeps, source: EventSource): EventBroadcaster {
  const { clock, log, random } = deps;
  const queue = new Channel<CoreEvent>(MAX_QUEUED_EVENTS);
  // Event names are <object>.<hex unix nanoseconds>: made strictly increasing so two events in one millisecond differ.
  let lastNanos = 0n;
  const name = (objectName: string) => {
    let nanos = BigInt(Math.floor(clock.now())) * 1_000_000n;
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    return `${objectName}.${nanos.toString(16)}`;
  };
  const correlator = new EventCorrelator(clock, name);

  const recorder: EventRecorder = {
    event(ref, type, reason, message, annotations) {
      const stamp = formatEventTime(clock.now());
      const event: CoreEvent = {
        metadata: { name: name(ref.name ?? ""), namespace: ref.namespace || "default", ...(annotations && { annotations }) },
        involvedObject: ref,
        reason,
        message,
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
        type,
        source: { component: source.component, host: source.host },
        reportingComponent: source.component,
        reportingInstance: source.host,
      };
      log.debug(
        "Event occurred",
        {
          object: ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name,
          fieldPath: ref.fieldPath ?? "",
          kind: ref.kind,
          apiVersion: ref.apiVersion,
          type,
          reason,
          message,
        },
        3,
      );
      if (deps.sink && !queue.trySend(event)) {
        log.debug("Event queue full, dropping the event", { reason, object: ref.name }, 2);
      }
    },
  };

  /** One try: true when the event is done with (written, or rejected for good). */
  async function write(sink: NonNullable<EventBroadcasterDeps["sink"]>, c: Extract<ReturnType<EventCorrelator["correlate"]>, { skip: false }>, signal: AbortSignal): Promise<boolean> {
    const event = c.event;
    try {
      let written: CoreEvent | undefined;
      if (c.patch && (event.count ?? 0) > 1) {
        try {
          written = await sink.sink.patch(event, c.patch, signal);
        } catch (err) {
          if (sink.classify(err) !== "notFound") throw err;
        }
      }
      written ??= await sink.sink.create({ ...event, metadata: { ...event.metadata, resourceVersion: undefined } }, signal);
      correlator.updateState(written);
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      const failure = sink.classify(err);
      const fields = { reason: event.reason, object: `${event.involvedObject.namespace}/${event.involvedObject.name}`, err };
      if (failure === "retry") {
        log.error("Unable to write event (may retry after sleeping)", fields);
        return false;
      }
      if (failure === "alreadyExists") log.debug("Server rejected event (will not retry!)", fields, 5);
      else log.error("Server rejected event (will not retry!)", fields);
      return true;
    }
  }

  return {
    recorder,
    async run(signal) {
      const sink = deps.sink;
      if (!sink) return;
      try {
        while (!signal.aborted) {
          const event = await queue.receive({ signal });
          const c = correlator.correlate(event);
          if (c.skip) continue;
          for (let tries = 1; !(await write(sink, c, signal)); tries++) {
            if (tries >= MAX_TRIES_PER_EVENT) {
              log.error("Unable to write event (retry limit exceeded!)", { reason: event.reason, object: event.involvedObject.name });
              break;
            }
            // The first wait is random so that nodes do not all come back at once.
            await clock.sleep(tries === 1 ? SLEEP_BETWEEN_TRIES_MS * random() : SLEEP_BETWEEN_TRIES_MS, signal);
          }
        }
      } catch (err) {
        if (!isAbortError(err, signal)) throw err;
      }
    },
  };
}
