import { describe, expect, test } from "bun:test";
import { Mailbox } from "../../../src/lib/index.ts";
import { flushMicrotasks } from "../../../src/lib/testing.ts";

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
