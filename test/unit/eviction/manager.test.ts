// The eviction manager's round (eviction_manager.go synchronize): which events it records, on
// what, and in which order with the kill.
import { describe, expect, test } from "bun:test";
import type { Pod, PodStatus } from "../../../src/api/index.ts";
import { EvictionManager, parseThresholdConfig } from "../../../src/eviction/index.ts";
import type { EvictionSummary } from "../../../src/eviction/manager.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { makePod } from "../../fixtures/pods.ts";

const MI = 1024n * 1024n;

function pod(name: string): Pod {
  return makePod({ name, namespace: "default", metadata: { uid: name }, spec: { containers: [{ name: "app", image: "busybox" }] } });
}

function setup(summary: EvictionSummary, active: Pod[], localStorageCapacityIsolation = false) {
  const calls: string[] = [];
  /** `withPods` of each summary the manager asked for; without pods it gets the node's part only, as the provider gives it. */
  const summaries: boolean[] = [];
  const events: { about: string; reason: string; message: string; annotations?: Record<string, string> }[] = [];
  const statuses: PodStatus[] = [];
  const manager = new EvictionManager(
    {
      summary: async (_signal, withPods) => {
        summaries.push(withPods);
        return withPods ? summary : { node: summary.node, pods: [] };
      },
      activePods: () => active,
      isStatic: () => false,
      killPod: async (p, grace, statusFn) => {
        calls.push(`kill ${p.metadata.name} grace=${grace}`);
        const status: PodStatus = {};
        statusFn(status);
        statuses.push(status);
      },
      reclaim: { deleteAllUnusedContainers: async () => void calls.push("reclaim containers"), deleteUnusedImages: async () => (calls.push("reclaim images"), 0) },
      onEvicted: (signal) => void calls.push(`evicted ${signal}`),
      nodeWarning: (reason, message) => {
        calls.push(`event node ${reason}`);
        events.push({ about: "node", reason, message });
      },
      podWarning: (p, reason, message, annotations) => {
        calls.push(`event pod ${p.metadata.name} ${reason}`);
        events.push({ about: p.metadata.name!, reason, message, annotations });
      },
      clock: new FakeClock(),
      log: createMemoryLogger(),
    },
    {
      thresholds: parseThresholdConfig({ evictionHard: { "memory.available": "100Mi" }, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {}, mergeDefaultEvictionSettings: false }),
      pressureTransitionPeriodMs: 300_000,
      maxPodGracePeriodSeconds: 0,
      evictStaticPods: false,
      localStorageCapacityIsolation,
    },
  );
  return { manager, calls, events, statuses, summaries };
}

const starved: EvictionSummary = {
  node: { memory: { availableBytes: 50n * MI, workingSetBytes: 950n * MI } },
  pods: [{ podRef: { uid: "hog" }, memory: { workingSetBytes: 300n * MI }, containers: [{ name: "app", memory: { workingSetBytes: 300n * MI } }] }],
};

describe("events of an eviction round", () => {
  test("EvictionThresholdMet on the node, then Evicted on the pod with the kubelet's annotations, before the kill", async () => {
    const { manager, calls, events, statuses } = setup(starved, [pod("hog")]);
    const evicted = await manager.synchronize(new AbortController().signal);
    expect(evicted?.metadata.name).toBe("hog");
    expect(calls).toEqual(["event node EvictionThresholdMet", "event pod hog Evicted", "kill hog grace=1", "evicted memory.available"]);
    const message =
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container app was using 300Mi, request is 0, has larger consumption of memory. ";
    expect(events).toEqual([
      { about: "node", reason: "EvictionThresholdMet", message: "Attempting to reclaim memory" },
      {
        about: "hog",
        reason: "Evicted",
        message,
        annotations: { offending_containers: "app", offending_containers_usage: "300Mi", starved_resource: "memory" },
      },
    ]);
    expect(statuses[0]).toMatchObject({ phase: "Failed", reason: "Evicted", message });
  });

  test("the pods' stats are read only once a threshold is met (for the ranking), after the node's", async () => {
    const { manager, summaries } = setup(starved, [pod("hog")]);
    await manager.synchronize(new AbortController().signal);
    expect(summaries).toEqual([false, true]);
  });

  test("no pressure, no event, and no pods' stats read", async () => {
    const { manager, events, summaries } = setup({ node: { memory: { availableBytes: 500n * MI, workingSetBytes: 500n * MI } }, pods: [] }, [pod("hog")], true);
    expect(await manager.synchronize(new AbortController().signal)).toBeUndefined();
    expect(events).toEqual([]);
    expect(summaries).toEqual([false]);
  });

  test("a critical pod is not evicted and gets no Evicted event; the node event is still recorded", async () => {
    const critical = { ...pod("hog"), spec: { ...pod("hog").spec, priority: 2_000_000_000 } } as Pod;
    const { manager, events, calls } = setup(starved, [critical]);
    expect(await manager.synchronize(new AbortController().signal)).toBeUndefined();
    expect(events.map((e) => `${e.about} ${e.reason}`)).toEqual(["node EvictionThresholdMet"]);
    expect(calls.filter((c) => c.startsWith("kill"))).toEqual([]);
  });
});

describe("local storage limits (localStorageEviction; CVE-2020-8557)", () => {
  const limited = (limit: string): Pod =>
    makePod({ name: "writer", namespace: "default", metadata: { uid: "writer" }, spec: { containers: [{ name: "app", image: "busybox", resources: { limits: { "ephemeral-storage": limit } } }] } });
  const calm = { memory: { availableBytes: 500n * MI, workingSetBytes: 500n * MI } };
  // The Summary's pod ephemeral storage counts the pod's /etc/hosts: here 20Mi of it, beside 1Mi of layer and logs.
  const writing: EvictionSummary = {
    node: calm,
    pods: [{ podRef: { uid: "writer" }, "ephemeral-storage": { usedBytes: 21n * MI }, containers: [{ name: "app", rootfs: { usedBytes: MI / 2n }, logs: { usedBytes: MI / 2n } }] }],
  };

  test("a pod whose ephemeral storage (its /etc/hosts included) passes its limit is evicted with no node pressure at all", async () => {
    const { manager, calls, events, statuses } = setup(writing, [limited("10Mi")], true);
    expect((await manager.synchronize(new AbortController().signal))?.metadata.name).toBe("writer");
    const message = "Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. ";
    expect(calls).toEqual(["event pod writer Evicted", "kill writer grace=1", "evicted ephemeralpodfs.limit"]);
    expect(events).toEqual([{ about: "writer", reason: "Evicted", message, annotations: {} }]);
    expect(statuses[0]).toEqual({ phase: "Failed", reason: "Evicted", message });
  });

  test("a container past its own limit (writable layer and logs) is evicted with the kubelet's message", async () => {
    const summary: EvictionSummary = { node: calm, pods: [{ ...writing.pods[0]!, "ephemeral-storage": { usedBytes: 3n * MI }, containers: [{ name: "app", rootfs: { usedBytes: 3n * MI } }] }] };
    const pod = limited("2Mi");
    pod.spec.containers.push({ name: "other", image: "busybox", resources: { limits: { "ephemeral-storage": "10Mi" } } });
    const { manager, calls, events } = setup(summary, [pod], true);
    await manager.synchronize(new AbortController().signal);
    expect(calls.at(-1)).toBe("evicted ephemeralcontainerfs.limit");
    expect(events[0]!.message).toBe('Container app exceeded its local ephemeral storage limit "2Mi". ');
  });

  test("within its limit, or without localStorageCapacityIsolation, nothing happens", async () => {
    expect(await setup(writing, [limited("30Mi")], true).manager.synchronize(new AbortController().signal)).toBeUndefined();
    expect(await setup(writing, [limited("10Mi")], false).manager.synchronize(new AbortController().signal)).toBeUndefined();
  });

  // Which rounds read the pods' stats: only those with a limit to check (that summary serves a ranking too).
  const initLimited = (): Pod =>
    makePod({
      name: "writer",
      namespace: "default",
      metadata: { uid: "writer" },
      spec: { initContainers: [{ name: "init", image: "busybox", resources: { limits: { "ephemeral-storage": "10Mi" } } }], containers: [{ name: "app", image: "busybox" }] },
    });
  test.each([
    ["a container's limit, isolation on", () => [limited("30Mi")], true, [true]],
    ["an init container's limit, isolation on", () => [initLimited()], true, [true]],
    ["a limit of zero (no limit), isolation on", () => [limited("0")], true, [false]],
    ["no limit, isolation on", () => [pod("writer")], true, [false]],
    ["a limit, isolation off", () => [limited("30Mi")], false, [false]],
  ] as const)("%s: the summaries' withPods %p", async (_name, active, isolation, want) => {
    const { manager, summaries } = setup(writing, [...active()], isolation);
    await manager.synchronize(new AbortController().signal);
    expect(summaries).toEqual([...want]);
  });

  test("an init container's limit is enforced from the pods' stats the round asked for", async () => {
    const { manager, calls } = setup(writing, [initLimited()], true);
    expect((await manager.synchronize(new AbortController().signal))?.metadata.name).toBe("writer");
    expect(calls.at(-1)).toBe("evicted ephemeralpodfs.limit");
  });

  test("a round that checked limits and then ranks pods reads the summary once", async () => {
    const { manager, summaries, calls } = setup({ ...writing, node: starved.node }, [limited("30Mi")], true);
    await manager.synchronize(new AbortController().signal);
    expect(summaries).toEqual([true]);
    expect(calls.at(-1)).toBe("evicted memory.available");
  });
});
