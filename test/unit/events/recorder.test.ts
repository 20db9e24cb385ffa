import { describe, expect, test } from "bun:test";
import type { Event as CoreEvent } from "kubernetes-types/core/v1";
import { containerReference, createEventBroadcaster, nodeReference, podReference } from "../../../src/events/index.ts";
import type { EventSink, SinkFailure } from "../../../src/events/recorder.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = makePod({
  name: "web",
  namespace: "shop",
  metadata: { uid: "u1" },
  spec: { containers: [{ name: "app", image: "busybox" }], initContainers: [{ name: "setup", image: "busybox" }] },
});

class Unreachable extends Error {}
class Gone extends Error {}

class FakeSink implements EventSink {
  created: CoreEvent[] = [];
  patched: { name: string; patch: object }[] = [];
  /** Failures to throw on the next calls, in order. */
  failures: Error[] = [];
  #rv = 0;
  async create(event: CoreEvent) {
    const f = this.failures.shift();
    if (f) throw f;
    this.created.push(event);
    return { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.#rv) } };
  }
  async patch(event: CoreEvent, patch: object) {
    const f = this.failures.shift();
    if (f) throw f;
    this.patched.push({ name: event.metadata.name ?? "", patch });
    return { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.#rv) } };
  }
}

const classify = (err: unknown): SinkFailure => (err instanceof Unreachable ? "retry" : err instanceof Gone ? "notFound" : "rejected");

function setup(withSink = true) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
  const log = createMemoryLogger();
  const sink = new FakeSink();
  const b = createEventBroadcaster({ clock, log, random: () => 0.5, sink: withSink ? { sink, classify } : undefined }, { component: "kubelet", host: "node-1" });
  const stop = new AbortController();
  const running = b.run(stop.signal);
  return { clock, log, sink, recorder: b.recorder, stop: async () => (stop.abort(), await running) };
}

describe("event references", () => {
  test("a container's reference names its field path; a container not in the spec has none", () => {
    expect(containerReference(pod, { name: "app" })).toEqual({ kind: "Pod", apiVersion: "v1", namespace: "shop", name: "web", uid: "u1", resourceVersion: undefined, fieldPath: "spec.containers{app}" });
    expect(containerReference(pod, { name: "setup" })?.fieldPath).toBe("spec.initContainers{setup}");
    expect(containerReference(pod, { name: "gone" })).toBeUndefined();
  });
});

describe("event recorder", () => {
  test("an event is created in the object's namespace with the kubelet's source and reporting fields", async () => {
    const t = setup();
    t.recorder.event(containerReference(pod, { name: "app" })!, "Normal", "Started", "Started container app");
    await t.clock.settle();
    await t.stop();
    expect(t.sink.created).toHaveLength(1);
    const e = t.sink.created[0]!;
    expect(e.metadata.namespace).toBe("shop");
    expect(e.metadata.name).toBe(`web.${(BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n).toString(16)}`);
    expect(e).toMatchObject({
      reason: "Started",
      message: "Started container app",
      type: "Normal",
      count: 1,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:00Z",
      source: { component: "kubelet", host: "node-1" },
      reportingComponent: "kubelet",
      reportingInstance: "node-1",
      involvedObject: { kind: "Pod", name: "web", namespace: "shop", uid: "u1", fieldPath: "spec.containers{app}" },
    });
    expect(t.log.lines.some((l) => l.msg === "Event occurred" && l.reason === "Started" && l.object === "shop/web")).toBe(true);
  });

  test("annotations become the event's own (AnnotatedEventf); a node's event is in the default namespace", async () => {
    const t = setup();
    t.recorder.event(podReference(pod), "Warning", "Evicted", "The node was low on resource: memory. ", { starved_resource: "memory" });
    t.recorder.event(nodeReference("node-1"), "Warning", "EvictionThresholdMet", "Attempting to reclaim memory");
    await t.clock.settle();
    await t.stop();
    expect(t.sink.created.map((e) => [e.metadata.namespace, e.metadata.annotations, e.involvedObject])).toEqual([
      ["shop", { starved_resource: "memory" }, { kind: "Pod", apiVersion: "v1", namespace: "shop", name: "web", uid: "u1", resourceVersion: undefined }],
      ["default", undefined, { kind: "Node", name: "node-1", uid: "node-1", namespace: "" }],
    ]);
  });

  test("a repeat is a patch of the first event; a patch of a deleted event creates it again", async () => {
    const t = setup();
    const ref = podReference(pod);
    t.recorder.event(ref, "Warning", "BackOff", "Back-off");
    await t.clock.settle();
    await t.clock.advance(2000);
    t.recorder.event(ref, "Warning", "BackOff", "Back-off");
    await t.clock.settle();
    expect(t.sink.patched).toEqual([{ name: t.sink.created[0]!.metadata.name!, patch: { count: 2, lastTimestamp: "2026-01-01T00:00:02Z", message: "Back-off" } }]);
    t.sink.failures.push(new Gone());
    t.recorder.event(ref, "Warning", "BackOff", "Back-off");
    await t.clock.settle();
    await t.stop();
    expect(t.sink.created).toHaveLength(2);
    expect(t.sink.created[1]!.count).toBe(3);
  });

  test("an unreachable apiserver is retried 10 s apart (the first wait randomized); a rejection is final", async () => {
    const t = setup();
    t.sink.failures.push(new Unreachable("down"), new Unreachable("down"));
    t.recorder.event(podReference(pod), "Normal", "Pulling", 'Pulling image "busybox"');
    await t.clock.settle();
    expect(t.sink.created).toHaveLength(0);
    await t.clock.advance(5000); // random 0.5 × 10 s
    expect(t.sink.created).toHaveLength(0);
    await t.clock.advance(10_000);
    expect(t.sink.created).toHaveLength(1);
    t.sink.failures.push(new Error("invalid"));
    t.recorder.event(podReference(pod), "Normal", "Pulled", "other");
    await t.clock.settle();
    await t.clock.advance(60_000);
    await t.stop();
    expect(t.sink.created).toHaveLength(1);
    expect(t.log.lines.filter((l) => l.msg === "Server rejected event (will not retry!)")).toHaveLength(1);
  });

  test("without a sink events are only logged", async () => {
    const t = setup(false);
    t.recorder.event(podReference(pod), "Normal", "Pulling", 'Pulling image "busybox"');
    await t.clock.settle();
    await t.stop();
    expect(t.sink.created).toHaveLength(0);
    expect(t.log.lines.some((l) => l.msg === "Event occurred" && l.reason === "Pulling")).toBe(true);
  });
});
