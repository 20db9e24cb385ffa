import { expect, test } from "bun:test";
import { CONTAINER_DELETOR_CAPACITY, ContainerGC } from "../../../src/podsync/container-gc.ts";
import { createMemoryLogger, FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";

function gc(cleanUp: (uid: string, removeAll: boolean) => Promise<void>, gone: string[] = []) {
  const log = createMemoryLogger();
  const clock = new FakeClock();
  const collected: string[][] = [];
  const containerGC = new ContainerGC({
    runtime: {
      cleanUpContainersInPod: (uid, { removeAll }) => cleanUp(uid, removeAll ?? false),
      garbageCollect: async (isPodGone) => void collected.push(["a", "b", "c"].filter(isPodGone)),
    },
    isPodGone: (uid) => gone.includes(uid),
    clock,
    log,
  });
  return { containerGC, log, clock, collected };
}

test("clean-ups run in order off the caller, and a failure does not stop the next one", async () => {
  const done: string[] = [];
  const { containerGC, log } = gc(async (uid, removeAll) => {
    if (uid === "bad") throw new Error("RemoveContainer failed");
    done.push(`${uid}:${removeAll}`);
  });
  expect(containerGC.deleteContainersInPod("a", false)).toBe(true);
  expect(containerGC.deleteContainersInPod("bad", false)).toBe(true);
  expect(containerGC.deleteContainersInPod("b", true)).toBe(true);
  expect(done).toEqual([]);
  const ac = new AbortController();
  const running = containerGC.run(ac.signal);
  await flushMicrotasks(40);
  expect(done).toEqual(["a:false", "b:true"]);
  expect(log.lines.filter((l) => l.level === "warn").map((l) => l.podUID)).toEqual(["bad"]);
  ac.abort();
  await running;
});

test("requests beyond the queue's capacity are dropped, not waited for", () => {
  const { containerGC } = gc(async () => {});
  for (let i = 0; i < CONTAINER_DELETOR_CAPACITY; i++) expect(containerGC.deleteContainersInPod(`p${i}`, false)).toBe(true);
  expect(containerGC.deleteContainersInPod("one-too-many", false)).toBe(false);
});

test("the periodic collection runs every minute, the first one minute after start, with the owner's idea of gone pods", async () => {
  const { containerGC, clock, collected } = gc(async () => {}, ["b"]);
  const ac = new AbortController();
  const running = containerGC.run(ac.signal);
  await clock.advance(59_999);
  expect(collected).toEqual([]);
  await clock.advance(1);
  expect(collected).toEqual([["b"]]);
  await clock.advance(60_000);
  expect(collected).toEqual([["b"], ["b"]]);
  ac.abort();
  await running;
});
