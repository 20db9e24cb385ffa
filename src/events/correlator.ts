/**
 * client-go's EventCorrelator (tools/record/events_cache.go), run on every event before it is
 * sent: similar events (same source, object, type and reason) that differ only by message are
 * aggregated into one "(combined from similar events): …" event once 10 distinct messages were
 * seen within 10 minutes; an event seen before is sent again as a patch of its count, last
 * timestamp and message; and a spam filter lets one source send an object a burst of 25 events,
 * then one per 5 minutes. Pure state over an injected clock.
 */
import type { Event as CoreEvent } from "kubernetes-types/core/v1";
import type { Clock } from "../lib/index.ts";
import { LruCache } from "./lru.ts";
import { formatEventTime } from "./time.ts";

const MAX_LRU_CACHE_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;

/** What to do with one event: skip it, create it, or patch the copy the apiserver has. */
export type Correlation =
  | { skip: true }
  | { skip: false; event: CoreEvent; patch?: { count: number; lastTimestamp: string; message?: string } };

function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]
    .map((s) => s ?? "")
    .join("");
}

function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((s) => s ?? "").join("");
}

function aggregateKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]
    .map((s) => s ?? "")
    .join("");
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestamp?: string;
  name?: string;
  resourceVersion?: string;
}

/** flowcontrol's token bucket, TryAccept only. */
interface SpamRecord {
  tokens: number;
  lastMs: number;
}

export class EventCorrelator {
  readonly #clock: Clock;
  readonly #aggregates = new LruCache<AggregateRecord>(MAX_LRU_CACHE_ENTRIES);
  readonly #logs = new LruCache<EventLog>(MAX_LRU_CACHE_ENTRIES);
  readonly #spam = new LruCache<SpamRecord>(MAX_LRU_CACHE_ENTRIES);
  /** Names the aggregate events it makes (the recorder's name function). */
  readonly #name: (objectName: string) => string;

  constructor(clock: Clock, name: (objectName: string) => string) {
    this.#clock = clock;
    this.#name = name;
  }

  correlate(newEvent: CoreEvent): Correlation {
    const [aggregated, key] = this.#aggregate(newEvent);
    const { event, patch } = this.#observe(aggregated, key);
    if (this.#filter(event)) return { skip: true };
    return { skip: false, event, patch };
  }

  /** The apiserver's copy of an event (its name and resourceVersion) for later patches. */
  updateState(event: CoreEvent): void {
    this.#logs.add(eventKey(event), {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name,
      resourceVersion: event.metadata.resourceVersion,
    });
  }

  #aggregate(event: CoreEvent): [CoreEvent, string] {
    const now = this.#clock.now();
    const key = eventKey(event);
    const group = aggregateKey(event);
    let record = this.#aggregates.get(group);
    if (!record || now - record.lastMs > AGGREGATE_INTERVAL_MS) record = { localKeys: new Set(), lastMs: 0 };
    record.localKeys.add(event.message ?? "");
    record.lastMs = now;
    this.#aggregates.add(group, record);
    if (record.localKeys.size < AGGREGATE_MAX_EVENTS) return [event, key];
    // The set never grows past the threshold (sets.PopAny drops one).
    record.localKeys.delete(record.localKeys.values().next().value!);
    const stamp = formatEventTime(now);
    const combined: CoreEvent = {
      metadata: { name: this.#name(event.involvedObject.name ?? ""), namespace: event.metadata.namespace },
      count: 1,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      involvedObject: event.involvedObject,
      message: `(combined from similar events): ${event.message ?? ""}`,
      type: event.type,
      reason: event.reason,
      source: event.source,
    };
    return [combined, group];
  }

  #observe(newEvent: CoreEvent, key: string): { event: CoreEvent; patch?: { count: number; lastTimestamp: string; message?: string } } {
    let event: CoreEvent = { ...newEvent };
    const last = this.#logs.get(key);
    let patch: { count: number; lastTimestamp: string; message?: string } | undefined;
    if (last && last.count > 0) {
      event = { ...event, metadata: { ...event.metadata, name: last.name, resourceVersion: last.resourceVersion } };
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      // The two-way merge patch between the event with and without count, lastTimestamp and message.
      patch = { count: event.count, lastTimestamp: event.lastTimestamp ?? "" };
      if (event.message) patch.message = event.message;
    }
    this.#logs.add(key, {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name,
      resourceVersion: event.metadata.resourceVersion,
    });
    return { event, patch };
  }

  /** True when the source has used up its budget of events about this object. */
  #filter(event: CoreEvent): boolean {
    const now = this.#clock.now();
    const key = spamKey(event);
    const record = this.#spam.get(key) ?? { tokens: SPAM_BURST, lastMs: now };
    record.tokens = Math.min(SPAM_BURST, record.tokens + ((now - record.lastMs) / 1000) * SPAM_QPS);
    record.lastMs = now;
    const accepted = record.tokens >= 1;
    if (accepted) record.tokens -= 1;
    this.#spam.add(key, record);
    return !accepted;
  }
}
