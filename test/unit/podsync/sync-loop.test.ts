import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import type { PodHandlers } from "../../../src/podsync/handlers.ts";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { SourcesReady } from "../../../src/podsync/sources-ready.ts";
import { runSyncLoop, SyncLoopMonitor, type SyncLoopDeps } from "../../../src/podsync/sync-loop.ts";
import type { PodUpdate } from "../../../src/podconfig/index.ts";
import { Channel, silentLogger } from "../../../src/lib/index.ts";
import { FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";
import type { PodLifecycleEvent, PodLifecycleEventType } from "../../../src/pleg/index.ts";
import { configPod } from "./fakes.ts";

function recordingHandlers(calls: string[], failingAdditions = false): PodHandlers {
  const names = (pods: Pod[]) => pods.map((p) => p.metadata.name).join(",");
  return {
    handlePodAdditions: (pods) => {
      calls.push(`add:${names(pods)}`);
      if (failingAdditions) throw new Error("handler bug");
    },
    handlePodUpdates: (pods) => calls.push(`update:${names(pods)}`),
    handlePodRemoves: (pods) => calls.push(`remove:${names(pods)}`),
    handlePodReconcile: (pods) => calls.push(`reconcile:${names(pods)}`),
    handlePodSyncs: (pods) => calls.push(`sync:${names(pods)}`),
  };
}

function harness(
  opts: { sources?: string[]; runtimeError?: (clock: FakeClock) => string | undefined; failingAdditions?: boolean; shouldSync?: (pod: Pod) => boolean } = {},
) {
  const clock = new FakeClock();
  const calls: string[] = [];
  const config = new Channel<PodUpdate>(10);
  const pleg = new Channel<PodLifecycleEvent>(10);
  const podManager = new PodManager(() => clock.now());
  const due: string[] = [];
  const sources = opts.sources ?? ["file"];
  const deleted: string[] = [];
  const contentRemovable = new Set<string>();
  let housekeepings = 0;
  let activity = 0;
  const monitor = new SyncLoopMonitor();
  const deps: SyncLoopDeps = {
    updates: config,
    pleg,
    sourcesReady: new SourcesReady((seen) => sources.every((s) => seen.has(s))),
    handlers: recordingHandlers(calls, opts.failingAdditions),
    podManager,
    workQueue: { getWork: () => due.splice(0) },
    podSyncLoopHandlers: opts.shouldSync ? [{ shouldSync: opts.shouldSync }] : undefined,
    housekeeping: {
      run: async () => {
        housekeepings++;
      },
    },
    containerDeletor: {
      deleteContainersInPod: (uid, removeAll) => {
        deleted.push(`${uid}:${removeAll}`);
        return true;
      },
    },
    shouldPodContentBeRemoved: (uid) => contentRemovable.has(uid),
    runtimeError: () => opts.runtimeError?.(clock),
    monitor,
    onActivity: () => void activity++,
    clock,
    log: silentLogger,
  };
  const ac = new AbortController();
  const done = runSyncLoop(deps, ac.signal);
  return {
    clock,
    calls,
    config,
    pleg,
    podManager,
    due,
    deleted,
    contentRemovable,
    monitor,
    housekeepings: () => housekeepings,
    activity: () => activity,
    done,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe("sync loop: config updates", () => {
  test.each([
    ["ADD", "add:a"],
    ["UPDATE", "update:a"],
    ["DELETE", "update:a"],
    ["REMOVE", "remove:a"],
    ["RECONCILE", "reconcile:a"],
  ] as const)("%s is dispatched as %s", async (op, expected) => {
    const h = harness();
    await h.config.send({ op, source: "file", pods: [configPod("a")] });
    await flushMicrotasks();
    expect(h.calls).toEqual([expected]);
    await h.stop();
  });

  test("updates are handled one at a time in arrival order", async () => {
    const h = harness();
    await h.config.send({ op: "ADD", source: "file", pods: [configPod("a")] });
    await h.config.send({ op: "UPDATE", source: "file", pods: [configPod("a")] });
    await h.config.send({ op: "REMOVE", source: "file", pods: [configPod("a")] });
    await flushMicrotasks(60);
    expect(h.calls).toEqual(["add:a", "update:a", "remove:a"]);
    await h.stop();
  });

  test("housekeeping waits until every configured source has sent an update", async () => {
    const h = harness({ sources: ["file", "http"] });
    await h.clock.advance(4000);
    expect(h.housekeepings()).toBe(0);
    await h.config.send({ op: "ADD", source: "file", pods: [] });
    await h.clock.advance(2000);
    expect(h.housekeepings()).toBe(0);
    await h.config.send({ op: "ADD", source: "http", pods: [] });
    await h.clock.advance(2000);
    expect(h.housekeepings()).toBe(1);
    await h.clock.advance(4000);
    expect(h.housekeepings()).toBe(3);
    await h.stop();
  });

  test("when the config updates end (no source configured) the loop keeps syncing and housekeeping", async () => {
    const h = harness({ sources: [] });
    h.config.close();
    h.podManager.upsert(configPod("a"));
    h.due.push("uid-a");
    await h.clock.advance(2000);
    expect(h.calls).toEqual(["sync:a"]);
    expect(h.housekeepings()).toBe(1);
    await h.stop();
  });
});

describe("sync loop: PLEG events", () => {
  const types: [PodLifecycleEventType, boolean][] = [
    ["ContainerStarted", true],
    ["ContainerDied", true],
    ["ContainerChanged", true],
    ["PodSync", true],
    ["ContainerRemoved", false],
  ];
  test.each(types)("%s for a known pod syncs it: %p", async (type, syncs) => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    await h.pleg.send({ id: "uid-a", type, data: "c1" });
    await flushMicrotasks();
    expect(h.calls).toEqual(syncs ? ["sync:a"] : []);
    await h.stop();
  });

  test("an event for a pod no source wants is ignored", async () => {
    const h = harness();
    await h.pleg.send({ id: "uid-gone", type: "ContainerStarted", data: "c1" });
    await flushMicrotasks();
    expect(h.calls).toEqual([]);
    await h.stop();
  });

  test("ContainerDied also cleans up the pod's dead containers, all of them once its content may go", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.contentRemovable.add("uid-gone");
    await h.pleg.send({ id: "uid-a", type: "ContainerDied", data: "c1" });
    await h.pleg.send({ id: "uid-gone", type: "ContainerDied", data: "c2" });
    await h.pleg.send({ id: "uid-a", type: "ContainerStarted", data: "c3" });
    await flushMicrotasks(60);
    expect(h.deleted).toEqual(["uid-a:false", "uid-gone:true"]);
    expect(h.calls).toEqual(["sync:a", "sync:a"]);
    await h.stop();
  });
});

describe("sync loop: ticks", () => {
  test("every second the pods whose requeue is due are synced; unknown UIDs are dropped", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.podManager.upsert(configPod("b"));
    await h.clock.advance(1000);
    expect(h.calls).toEqual([]);
    h.due.push("uid-a", "uid-gone", "uid-b");
    await h.clock.advance(999);
    expect(h.calls).toEqual([]);
    await h.clock.advance(1);
    expect(h.calls).toEqual(["sync:a,b"]);
    await h.stop();
  });

  test("a pod a sync loop handler asks for (past its active deadline) is synced at the tick with no work due", async () => {
    const past = new Set<string>();
    const h = harness({ shouldSync: (pod) => past.has(pod.metadata.name ?? "") });
    h.podManager.upsert(configPod("a"));
    h.podManager.upsert(configPod("b"));
    h.podManager.upsert(configPod("c"));
    await h.clock.advance(1000);
    expect(h.calls).toEqual([]);
    past.add("b");
    h.due.push("uid-c");
    await h.clock.advance(1000);
    expect(h.calls).toEqual(["sync:b,c"]);
    await h.stop();
  });

  test("the monitor records when the loop last entered an iteration", async () => {
    const h = harness();
    const start = h.clock.now();
    await h.clock.advance(3000);
    expect(h.monitor.lastEntry).toBe(start + 3000);
    await h.stop();
  });
});

describe("sync loop: activity", () => {
  test("config updates and PLEG events count as activity (the idle memory release waits for them to stop); ticks and housekeeping do not", async () => {
    const h = harness();
    h.podManager.upsert(configPod("a"));
    h.due.push("uid-a");
    await h.clock.advance(4000);
    expect(h.activity()).toBe(0);
    await h.config.send({ op: "ADD", source: "file", pods: [configPod("b")] });
    await h.pleg.send({ id: "uid-a", type: "ContainerStarted", data: "c1" });
    await flushMicrotasks(60);
    expect(h.activity()).toBe(2);
    await h.stop();
  });
});

describe("sync loop: runtime health", () => {
  test("while the runtime is down iterations are skipped with backoff 100 ms doubling to 5 s", async () => {
    let down = true;
    const checks: number[] = [];
    const h = harness({
      runtimeError: (clock) => {
        checks.push(clock.now());
        return down ? "container runtime is down" : undefined;
      },
    });
    const t0 = h.clock.now();
    h.podManager.upsert(configPod("a"));
    await h.config.send({ op: "UPDATE", source: "file", pods: [configPod("a")] });
    await h.clock.advance(20_000);
    expect(h.calls).toEqual([]);
    const gaps = checks.slice(1, 9).map((t, i) => t - checks[i]);
    expect(checks[0]).toBe(t0);
    expect(gaps).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);

    down = false;
    await h.clock.advance(5000);
    expect(h.calls).toEqual(["update:a"]);
    await h.stop();
  });

  test("after the runtime recovers the backoff starts again from 100 ms", async () => {
    let down = true;
    const checks: number[] = [];
    const h = harness({
      runtimeError: (clock) => {
        checks.push(clock.now());
        return down ? "down" : undefined;
      },
    });
    await h.clock.advance(1000); // skips at 0, 100, 300, 700
    down = false;
    await h.clock.advance(1000); // 1500: resumes and waits in receive
    down = true;
    checks.length = 0;
    await h.clock.advance(1000); // the next tick ends the iteration; the check fails again
    expect(checks.slice(1, 4).map((t, i) => t - checks[i])).toEqual([100, 200]);
    await h.stop();
  });
});

describe("sync loop: failures", () => {
  test("a handler that throws does not stop the loop", async () => {
    const h = harness({ failingAdditions: true });
    h.podManager.upsert(configPod("a"));
    await h.config.send({ op: "ADD", source: "file", pods: [configPod("a")] });
    await h.pleg.send({ id: "uid-a", type: "ContainerStarted", data: "c1" });
    await flushMicrotasks(60);
    expect(h.calls).toEqual(["add:a", "sync:a"]);
    await h.stop();
  });
});

describe("sync loop: shutdown", () => {
  test("aborting the signal ends the loop and its sources", async () => {
    const h = harness();
    await h.clock.advance(1000);
    await h.stop();
    await h.clock.advance(10_000);
    expect(h.housekeepings()).toBe(0);
    expect(h.clock.pending).toBe(0);
  });
});
