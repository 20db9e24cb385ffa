import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../../src/lib/testing.ts";
import { WorkQueue } from "../../../src/podworkers/index.ts";

describe("WorkQueue", () => {
  test("an entry is due after its delay, removed once returned, and a new delay overwrites the old", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(clock);
    queue.enqueue("a", 10_000);
    queue.enqueue("b", 0);
    queue.enqueue("a", 5_000);
    expect(queue.getWork()).toEqual(["b"]);
    expect(queue.getWork()).toEqual([]);
    await clock.advance(4_999);
    expect(queue.getWork()).toEqual([]);
    await clock.advance(1);
    expect(queue.getWork()).toEqual(["a"]);
    expect(queue.size).toBe(0);
  });
});
