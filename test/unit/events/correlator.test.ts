import { describe, expect, test } from "bun:test";
import type { Event as CoreEvent } from "kubernetes-types/core/v1";
import { EventCorrelator } from "../../../src/events/correlator.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

function makeEvent(over: { reason?: string; message?: string; name?: string; uid?: string; fieldPath?: string } = {}): CoreEvent {
  return {
    metadata: { name: `${over.name ?? "web"}.1`, namespace: "default" },
    involvedObject: { kind: "Pod", apiVersion: "v1", namespace: "default", name: over.name ?? "web", uid: over.uid ?? "u1", fieldPath: over.fieldPath },
    reason: over.reason ?? "Pulled",
    message: over.message ?? "Container image \"busybox\" already present on machine and can be accessed by the pod",
    type: "Normal",
    count: 1,
    firstTimestamp: "2026-01-01T00:00:00Z",
    lastTimestamp: "2026-01-01T00:00:00Z",
    source: { component: "kubelet", host: "node-1" },
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
  };
}

function setup() {
  const clock = new FakeClock();
  let n = 0;
  const correlator = new EventCorrelator(clock, (name) => `${name}.agg${++n}`);
  const send = (e: CoreEvent) => {
    const c = correlator.correlate(e);
    if (!c.skip) correlator.updateState({ ...c.event, metadata: { ...c.event.metadata, resourceVersion: "rv" } });
    return c;
  };
  return { clock, correlator, send };
}

describe("EventCorrelator (client-go events_cache)", () => {
  test("a first event is created as it is, count 1, without a patch", () => {
    const { send } = setup();
    const c = send(makeEvent());
    expect(c.skip).toBe(false);
    if (c.skip) return;
    expect(c.patch).toBeUndefined();
    expect(c.event.count).toBe(1);
  });

  test("the same event again is a patch of count, lastTimestamp and message on the first one's name", async () => {
    const { clock, send } = setup();
    send(makeEvent());
    await clock.advance(5000);
    const later = { ...makeEvent(), lastTimestamp: "2026-01-01T00:00:05Z", metadata: { name: "web.2", namespace: "default" } };
    const c = send(later);
    if (c.skip) throw new Error("skipped");
    expect(c.event.metadata.name).toBe("web.1");
    expect(c.event.count).toBe(2);
    expect(c.event.firstTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(c.event.metadata.resourceVersion).toBe("rv");
    expect(c.patch).toEqual({ count: 2, lastTimestamp: "2026-01-01T00:00:05Z", message: later.message });
  });

  test("a different field path is a different event", () => {
    const { send } = setup();
    send(makeEvent({ fieldPath: "spec.containers{a}" }));
    const c = send(makeEvent({ fieldPath: "spec.containers{b}" }));
    if (c.skip) throw new Error("skipped");
    expect(c.patch).toBeUndefined();
  });

  test("the tenth distinct message of a reason within 10 minutes is combined, and further ones count on it", () => {
    const { send } = setup();
    for (let i = 1; i <= 9; i++) {
      const c = send(makeEvent({ reason: "Unhealthy", message: `probe failed: ${i}` }));
      if (c.skip) throw new Error("skipped");
      expect(c.event.message).toBe(`probe failed: ${i}`);
    }
    const tenth = send(makeEvent({ reason: "Unhealthy", message: "probe failed: 10" }));
    if (tenth.skip) throw new Error("skipped");
    expect(tenth.event.message).toBe("(combined from similar events): probe failed: 10");
    expect(tenth.event.metadata.name).toBe("web.agg1");
    expect(tenth.patch).toBeUndefined();
    const eleventh = send(makeEvent({ reason: "Unhealthy", message: "probe failed: 11" }));
    if (eleventh.skip) throw new Error("skipped");
    expect(eleventh.event.message).toBe("(combined from similar events): probe failed: 11");
    expect(eleventh.event.metadata.name).toBe("web.agg1");
    expect(eleventh.event.count).toBe(2);
  });

  test("similar events more than 10 minutes apart start a new aggregation", async () => {
    const { clock, send } = setup();
    for (let i = 1; i <= 9; i++) send(makeEvent({ reason: "Unhealthy", message: `m${i}` }));
    await clock.advance(600_001);
    const c = send(makeEvent({ reason: "Unhealthy", message: "m10" }));
    if (c.skip) throw new Error("skipped");
    expect(c.event.message).toBe("m10");
  });

  test("a source sends an object 25 events, then one per 5 minutes", async () => {
    const { clock, send } = setup();
    for (let i = 0; i < 25; i++) expect(send(makeEvent()).skip).toBe(false);
    expect(send(makeEvent()).skip).toBe(true);
    // Another object has its own budget.
    expect(send(makeEvent({ name: "other", uid: "u2" })).skip).toBe(false);
    await clock.advance(299_000);
    expect(send(makeEvent()).skip).toBe(true);
    await clock.advance(1_000);
    expect(send(makeEvent()).skip).toBe(false);
    expect(send(makeEvent()).skip).toBe(true);
  });
});
