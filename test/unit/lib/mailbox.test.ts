import { describe, expect, test } from "bun:test";
import { flushMicrotasks, KeyedSequencer, Mailbox } from "../../../src/lib/index.ts";

describe("Mailbox (latest wins)", () => {
  test("put replaces the waiting value and returns the one it replaced", async () => {
    const box = new Mailbox<number>();
    expect(box.put(1)).toBeUndefined();
    expect(box.put(2)).toBe(1);
    expect(box.peek()).toBe(2);
    expect(box.hasValue).toBe(true);
    expect(await box.take()).toBe(2);
    expect(box.hasValue).toBe(false);
    expect(box.tryTake()).toBeUndefined();
  });

  test("take waits for the next put", async () => {
    const box = new Mailbox<string>();
    const taking = box.take();
    await flushMicrotasks();
    expect(box.put("x")).toBeUndefined();
    expect(await taking).toBe("x");
    expect(box.hasValue).toBe(false);
  });

  test("an aborted take resolves undefined, and a later put is kept for the next take", async () => {
    const box = new Mailbox<number>();
    const ac = new AbortController();
    const taking = box.take(ac.signal);
    ac.abort();
    expect(await taking).toBeUndefined();
    box.put(3);
    expect(await box.take(ac.signal)).toBe(3);
    expect(await box.take(ac.signal)).toBeUndefined();
  });
});

describe("KeyedSequencer", () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };

  test("tasks of one key run one at a time, in submission order", async () => {
    const seq = new KeyedSequencer<string>();
    const log: string[] = [];
    const first = deferred();
    const a = seq.run("pod", async () => {
      log.push("a start");
      await first.promise;
      log.push("a end");
    });
    const b = seq.run("pod", async () => {
      log.push("b");
    });
    await flushMicrotasks();
    expect(log).toEqual(["a start"]);
    first.resolve();
    await Promise.all([a, b]);
    expect(log).toEqual(["a start", "a end", "b"]);
  });

  test("different keys run concurrently and a failure does not block the next task", async () => {
    const seq = new KeyedSequencer<string>();
    const gate = deferred();
    const slow = seq.run("a", () => gate.promise);
    const fast = seq.run("b", async () => "done");
    expect(await fast).toBe("done");
    const failing = seq.run("a", async () => {
      throw new Error("task failed");
    });
    const after = seq.run("a", async () => "after");
    gate.resolve();
    await slow;
    await expect(failing).rejects.toThrow("task failed");
    expect(await after).toBe("after");
  });

  test("whenIdle resolves once every queued task settled; idle keys are forgotten", async () => {
    const seq = new KeyedSequencer<number>();
    const gate = deferred();
    let done = false;
    void seq.run(1, () => gate.promise).then(() => (done = true));
    expect(seq.size).toBe(1);
    let idle = false;
    const waiting = seq.whenIdle().then(() => (idle = true));
    await flushMicrotasks();
    expect(idle).toBe(false);
    gate.resolve();
    await waiting;
    expect(done).toBe(true);
    await flushMicrotasks();
    expect(seq.size).toBe(0);
  });
});
