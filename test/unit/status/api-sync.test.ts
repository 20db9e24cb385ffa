import { describe, expect, test } from "bun:test";
import type { Pod, PodStatus } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/index.ts";
import { createStatusManager, createStatusSync } from "../../../src/status/index.ts";
import { c, podWith } from "./states.ts";

/**
 * The apiserver's JSON of a status, as Go's encoder writes it: fields in Go's order, a zero
 * metav1.Time as null (a condition's lastProbeTime), an unset lastState as {}.
 */
function goShaped(status: PodStatus): PodStatus {
  const conditions = (status.conditions ?? []).map((cond) => Object.assign({ type: cond.type, status: cond.status, lastProbeTime: null }, cond));
  const containerStatuses = (status.containerStatuses ?? []).map((cs) =>
    Object.assign({ name: cs.name, state: cs.state ?? {}, lastState: cs.lastState ?? {}, ready: cs.ready, restartCount: cs.restartCount, image: cs.image, imageID: cs.imageID }, cs),
  );
  return { phase: status.phase, conditions, hostIP: status.hostIP, startTime: status.startTime, containerStatuses, qosClass: status.qosClass, message: status.message } as PodStatus;
}

/** One pod in a fake apiserver; a status patch stores the sender's status Go-shaped, as a round trip would. */
function setup() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const log = createMemoryLogger();
  const manager = createStatusManager({ clock, log });
  const pod: Pod = podWith({ containers: [c("app")] });
  let stored: PodStatus = goShaped({ phase: "Pending" });
  const calls = { get: 0, patch: 0 };
  const client = {
    get: async <T>() => {
      calls.get++;
      return { ...pod, status: structuredClone(stored) } as T;
    },
    patch: async <T>() => {
      calls.patch++;
      stored = goShaped(manager.getPodStatus("uid-1")!);
      return { ...pod, status: structuredClone(stored) } as T;
    },
    delete: async () => {},
  };
  // The pod manager's copy: the apiserver's, as its watch delivered it.
  const podOf = () => ({ ...pod, status: structuredClone(stored) });
  const sync = createStatusSync({ client: client as never, statusManager: manager, podOf, mirrorPodOf: () => undefined, clock, log });
  // Another writer (or an etcd restore) replaced the status bunlet sent.
  const lose = () => {
    stored = goShaped({ phase: "Pending" });
  };
  return { clock, manager, pod, calls, sync, lose };
}

const runningStatus: PodStatus = {
  phase: "Running",
  hostIP: "192.0.2.2",
  qosClass: "BestEffort",
  conditions: [
    { type: "Initialized", status: "True", lastTransitionTime: "2026-01-01T12:00:00Z" },
    { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T12:00:01Z" },
  ],
  containerStatuses: [
    { name: "app", state: { running: { startedAt: "2026-01-01T12:00:01Z" } }, ready: true, restartCount: 0, image: "busybox:1.36", imageID: "sha256:1", containerID: "containerd://a", started: true },
  ],
};

describe("the apiserver status sync at rest (status_manager.go syncBatch)", () => {
  test("an unchanged pod is neither read nor patched again, though the apiserver's JSON has nulls, {} and Go's field order", async () => {
    const { clock, manager, pod, calls, sync } = setup();
    const stop = new AbortController();
    const running = sync.run(stop.signal);
    manager.setPodStatus(pod, structuredClone(runningStatus));
    await clock.advance(0);
    expect(calls).toEqual({ get: 1, patch: 1 });
    // A minute of full resyncs (every 10 s): the kubelet's status manager sends nothing at rest.
    for (let i = 0; i < 6; i++) await clock.advance(10_000);
    expect(calls).toEqual({ get: 1, patch: 1 });
    stop.abort();
    await running;
  });

  test("a changed status is sent at once; a status the apiserver lost is sent again at the next full resync", async () => {
    const { clock, manager, pod, calls, sync, lose } = setup();
    const stop = new AbortController();
    const running = sync.run(stop.signal);
    manager.setPodStatus(pod, structuredClone(runningStatus));
    await clock.advance(0);
    manager.setPodStatus(pod, { ...structuredClone(runningStatus), message: "changed" });
    await clock.advance(0);
    expect(calls).toEqual({ get: 2, patch: 2 });
    lose();
    await clock.advance(10_000);
    expect(calls).toEqual({ get: 3, patch: 3 });
    await clock.advance(10_000);
    expect(calls).toEqual({ get: 3, patch: 3 });
    stop.abort();
    await running;
  });
});
