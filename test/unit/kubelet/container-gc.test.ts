import { expect, test } from "bun:test";
import { CONTAINER_DELETOR_CAPACITY, ContainerDeletor } from "../../../src/kubelet/container-deletor.ts";
import { createMemoryLogger, flushMicrotasks } from "../../../src/lib/index.ts";

test("clean-ups run in order off the caller, and a failure does not stop the next one", async () => {
  const done: string[] = [];
  const log = createMemoryLogger();
  const deletor = new ContainerDeletor({
    cleanUpContainersInPod: async (uid, { removeAll }) => {
      if (uid === "bad") throw new Error("RemoveContainer failed");
      done.push(`${uid}:${removeAll}`);
    },
    log,
  });
  expect(deletor.deleteContainersInPod("a", false)).toBe(true);
  expect(deletor.deleteContainersInPod("bad", false)).toBe(true);
  expect(deletor.deleteContainersInPod("b", true)).toBe(true);
  expect(done).toEqual([]);
  const ac = new AbortController();
  const running = deletor.run(ac.signal);
  await flushMicrotasks(40);
  expect(done).toEqual(["a:false", "b:true"]);
  expect(log.lines.filter((l) => l.level === "warn").map((l) => l.podUID)).toEqual(["bad"]);
  ac.abort();
  await running;
});

test("requests beyond the queue's capacity are dropped, not waited for", () => {
  const deletor = new ContainerDeletor({ cleanUpContainersInPod: async () => {}, log: createMemoryLogger() });
  for (let i = 0; i < CONTAINER_DELETOR_CAPACITY; i++) expect(deletor.deleteContainersInPod(`p${i}`, false)).toBe(true);
  expect(deletor.deleteContainersInPod("one-too-many", false)).toBe(false);
});
