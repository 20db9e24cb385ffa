import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";
import { ApiserverSource } from "../../../src/podconfig/api-source.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (name: string, rv = "1"): Pod => makePod({ name, namespace: "default", metadata: { uid: `uid-${name}`, resourceVersion: rv } });

/** An apiserver whose list answers only when the test says so (frozen until then). */
function frozenApiserver() {
  let answer: (pods: Pod[]) => void = () => {};
  const listed = new Promise<Pod[]>((resolve) => (answer = resolve));
  const client = {
    async list<T>(_path: string, opts: { signal?: AbortSignal } = {}) {
      const aborted = new Promise<never>((_r, reject) => opts.signal?.addEventListener("abort", () => reject(opts.signal!.reason)));
      return { metadata: { resourceVersion: "5" }, items: (await Promise.race([listed, aborted])) as T[] };
    },
    async *watch<T>(_path: string, opts: { signal?: AbortSignal }): AsyncIterable<never> {
      await new Promise((_r, reject) => opts.signal?.addEventListener("abort", () => reject(opts.signal!.reason)));
      yield undefined as never as T as never;
    },
  };
  return { client, answer };
}

async function run(checkpointPods: Pod[] | undefined) {
  const api = frozenApiserver();
  const snapshots: string[][] = [];
  const recorded: string[][] = [];
  const clock = new FakeClock();
  const source = new ApiserverSource({
    client: api.client as never,
    nodeName: "edge-1",
    clock,
    random: () => 0,
    log: silentLogger,
    onSnapshot: async (pods) => void snapshots.push(pods.map((p) => p.metadata.name!)),
    checkpoint: checkpointPods && { startPods: checkpointPods, recordPods: (pods) => void recorded.push(pods.map((p) => p.metadata.name!)) },
  });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  await flushMicrotasks();
  return { api, clock, snapshots, recorded, stop: async () => (stop.abort(), await running.catch(() => {})) };
}

describe("the apiserver source with a checkpoint", () => {
  test("the checkpointed pods are the first snapshot when the apiserver has not listed within 3 s, and are not recorded", async () => {
    const t = await run([pod("web"), pod("db")]);
    await t.clock.advance(2_999);
    expect(t.snapshots).toEqual([]);
    await t.clock.advance(1);
    expect(t.snapshots).toEqual([["web", "db"]]);
    expect(t.recorded).toEqual([]);
    await t.stop();
  });

  test("an apiserver that lists within the grace is the first snapshot: the checkpoint (without statuses) is never sent", async () => {
    const t = await run([pod("web")]);
    await t.clock.advance(500);
    t.api.answer([pod("web", "7")]);
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    await t.clock.advance(5_000);
    expect(t.snapshots).toEqual([["web"]]);
    expect(t.recorded).toEqual([["web"]]);
    await t.stop();
  });

  test("the first list replaces them and is recorded, even when it is empty", async () => {
    const t = await run([pod("web")]);
    await t.clock.advance(3_000);
    t.api.answer([]);
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    expect(t.snapshots).toEqual([["web"], []]);
    expect(t.recorded).toEqual([[]]);
    await t.stop();
  });

  test("without a checkpoint nothing is sent before the first list (the kubelet's behaviour)", async () => {
    const t = await run(undefined);
    expect(t.snapshots).toEqual([]);
    t.api.answer([pod("web")]);
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    expect(t.snapshots).toEqual([["web"]]);
    await t.stop();
  });
});
