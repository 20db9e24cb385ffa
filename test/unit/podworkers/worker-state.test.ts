// The pod worker lifecycle: a declared state and pure transitions, table by table.
import { describe, expect, test } from "bun:test";
import * as lc from "../../../src/podworkers/worker-state.ts";
import type { TerminationCause, WorkerState } from "../../../src/podworkers/worker-state.ts";
import type { PodWorkType } from "../../../src/podworkers/index.ts";
import { workerPod } from "./helpers.ts";

const terminating = (cause: TerminationCause = "ended"): WorkerState => lc.requestTermination(lc.syncing, cause, 2);
const terminated = (cause: TerminationCause = "ended"): WorkerState => lc.completeTerminating(terminating(cause), 3);
const finished = (cause: TerminationCause = "ended"): WorkerState => lc.finish(terminated(cause), 4);
const states: Record<WorkerState["kind"], WorkerState> = {
  syncing: lc.syncing,
  terminating: terminating(),
  terminated: terminated(),
  finished: finished(),
};

describe("transitions: syncing → terminating → terminated → finished, and terminating → finished", () => {
  const events: Record<string, (s: WorkerState) => WorkerState> = {
    requestTermination: (s) => lc.requestTermination(s, "deleted", 9),
    completeTerminating: (s) => lc.completeTerminating(s, 9),
    finish: (s) => lc.finish(s, 9),
  };
  const expected: Record<string, Record<WorkerState["kind"], WorkerState["kind"]>> = {
    requestTermination: { syncing: "terminating", terminating: "terminating", terminated: "terminated", finished: "finished" },
    completeTerminating: { syncing: "syncing", terminating: "terminated", terminated: "terminated", finished: "finished" },
    finish: { syncing: "syncing", terminating: "finished", terminated: "finished", finished: "finished" },
  };
  for (const [event, apply] of Object.entries(events)) {
    for (const [from, state] of Object.entries(states)) {
      const to = expected[event]![from as WorkerState["kind"]];
      test(`${event} in ${from} ${to === from ? "changes nothing" : `moves to ${to}`}`, () => {
        const next = apply(state);
        expect(next.kind).toBe(to);
        if (to === from) expect(next).toBe(state);
      });
    }
  }

  test("entering a state stamps its time; finishing keeps the time termination completed", () => {
    expect(terminating()).toMatchObject({ kind: "terminating", terminatingAt: 2 });
    expect(terminated()).toMatchObject({ kind: "terminated", terminatingAt: 2, terminatedAt: 3 });
    expect(finished()).toMatchObject({ kind: "finished", terminatedAt: 3 });
    expect(lc.finish(terminating(), 7)).toMatchObject({ kind: "finished", terminatedAt: 7 });
  });

  test("a pod first seen terminal is terminated and acknowledged", () => {
    expect(lc.alreadyTerminated(5)).toMatchObject({ kind: "terminated", cause: "ended", terminatingAt: 5, terminatedAt: 5, acknowledged: true });
  });

  test("transitions never change their input", () => {
    const before = terminating();
    const copy = structuredClone(before);
    lc.completeTerminating(before, 9);
    lc.acknowledgeTermination(before);
    lc.orphan(before);
    lc.requestRestart(before);
    lc.observeRuntime(before);
    expect(before).toEqual(copy);
  });
});

describe("what an update to a pod that is not terminating starts", () => {
  const pod = (opts: { deleting?: boolean; phase?: "Succeeded" | "Failed" } = {}) => {
    const p = workerPod("a", { phase: opts.phase });
    if (opts.deleting) p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    return p;
  };
  const cases: { name: string; pod?: Parameters<typeof pod>[0]; update: Parameters<typeof lc.terminationCause>[1]; runtime?: boolean; want: TerminationCause | undefined }[] = [
    { name: "a sync keeps it syncing", update: { updateType: "sync" }, want: undefined },
    { name: "a runtime-only kill deletes it", update: { updateType: "kill" }, runtime: true, want: "deleted" },
    { name: "a deletion timestamp deletes it", pod: { deleting: true }, update: { updateType: "update" }, want: "deleted" },
    { name: "a terminal phase ends it", pod: { phase: "Succeeded" }, update: { updateType: "sync" }, want: "ended" },
    { name: "a failed phase ends it", pod: { phase: "Failed" }, update: { updateType: "update" }, want: "ended" },
    { name: "a kill ends it", update: { updateType: "kill" }, want: "ended" },
    { name: "a kill with evict evicts it", update: { updateType: "kill", killPodOptions: { evict: true } }, want: "evicted" },
    { name: "deletion wins over eviction", pod: { deleting: true }, update: { updateType: "kill", killPodOptions: { evict: true } }, want: "deleted" },
  ];
  for (const c of cases) {
    test(c.name, () => expect(lc.terminationCause(pod(c.pod), c.update, c.runtime ?? false)).toBe(c.want));
  }
});

describe("what the state says", () => {
  const cases: [string, WorkerState, { workType: PodWorkType; requested: boolean; terminated: boolean; containersTerminating: boolean; contentRemovable: boolean }][] = [
    ["syncing", lc.syncing, { workType: "SyncPod", requested: false, terminated: false, containersTerminating: false, contentRemovable: false }],
    ["terminating, not acknowledged", terminating(), { workType: "TerminatingPod", requested: true, terminated: false, containersTerminating: false, contentRemovable: false }],
    ["terminating, acknowledged", lc.acknowledgeTermination(terminating()), { workType: "TerminatingPod", requested: true, terminated: false, containersTerminating: true, contentRemovable: false }],
    ["terminating, deleted", terminating("deleted"), { workType: "TerminatingPod", requested: true, terminated: false, containersTerminating: false, contentRemovable: false }],
    ["terminating, evicted", terminating("evicted"), { workType: "TerminatingPod", requested: true, terminated: false, containersTerminating: false, contentRemovable: true }],
    ["terminated, ended", terminated(), { workType: "TerminatedPod", requested: true, terminated: true, containersTerminating: false, contentRemovable: false }],
    ["terminated, deleted", terminated("deleted"), { workType: "TerminatedPod", requested: true, terminated: true, containersTerminating: false, contentRemovable: true }],
    ["finished, deleted", finished("deleted"), { workType: "TerminatedPod", requested: true, terminated: true, containersTerminating: false, contentRemovable: true }],
  ];
  for (const [name, state, want] of cases) {
    test(name, () => {
      expect({
        workType: lc.workType(state),
        requested: lc.isTerminationRequested(state),
        terminated: lc.isTerminated(state),
        containersTerminating: lc.containersTerminating(state),
        contentRemovable: lc.contentRemovable(state),
      }).toEqual(want);
    });
  }
});

describe("what the worker learns while terminating", () => {
  test("an orphan that ended is deleted; an eviction or a deletion stays as it was", () => {
    expect(lc.orphan(terminating("ended"))).toMatchObject({ cause: "deleted" });
    expect(lc.orphan(terminating("evicted"))).toMatchObject({ cause: "evicted" });
    expect(lc.orphan(terminated("deleted"))).toMatchObject({ cause: "deleted" });
    expect(lc.orphan(lc.syncing)).toBe(lc.syncing);
  });

  test("restart requests and runtime-only kills are remembered once termination was requested, never while syncing", () => {
    expect(lc.restartRequested(lc.requestRestart(terminating()))).toBe(true);
    expect(lc.restartRequested(lc.requestRestart(lc.syncing))).toBe(false);
    expect(lc.observedRuntime(lc.observeRuntime(terminated()))).toBe(true);
    expect(lc.observedRuntime(lc.observeRuntime(lc.syncing))).toBe(false);
    expect(lc.containersTerminating(lc.acknowledgeTermination(lc.syncing))).toBe(false);
  });
});
