import { describe, expect, test } from "bun:test";
import { Channel, ChannelClosedError } from "../../../src/lib/index.ts";
import { flushMicrotasks } from "../../../src/lib/testing.ts";

describe("Channel", () => {
  test("values come out in the order they went in", async () => {
    const ch = new Channel<number>(3);
    for (const v of [1, 2, 3]) expect(ch.trySend(v)).toBe(true);
    expect([await ch.receive(), await ch.receive(), await ch.receive()]).toEqual([1, 2, 3]);
  });

  test("trySend fails fast when the buffer is full (the PLEG's discard path)", () => {
    const ch = new Channel<number>(2);
    expect([ch.trySend(1), ch.trySend(2), ch.trySend(3)]).toEqual([true, true, false]);
    expect(ch.length).toBe(2);
  });

  test("send waits for room and completes when a value is received", async () => {
    const ch = new Channel<string>(1);
    ch.trySend("a");
    let sent = false;
    const sending = ch.send("b").then(() => (sent = true));
    await flushMicrotasks();
    expect(sent).toBe(false);
    expect(await ch.receive()).toBe("a");
    await sending;
    expect(sent).toBe(true);
    expect(await ch.receive()).toBe("b");
  });

  test("an unbuffered channel hands a value straight to a waiting receiver", async () => {
    const ch = new Channel<number>(0);
    expect(ch.trySend(1)).toBe(false);
    const receiving = ch.receive();
    expect(ch.trySend(7)).toBe(true);
    expect(await receiving).toBe(7);
    const sending = ch.send(8);
    expect(ch.tryReceive()).toEqual({ value: 8 });
    await sending;
  });

  test("receive waits for a value; tryReceive returns undefined when empty", async () => {
    const ch = new Channel<number>(1);
    expect(ch.tryReceive()).toBeUndefined();
    const receiving = ch.receive();
    ch.trySend(5);
    expect(await receiving).toBe(5);
  });

  test("an aborted receive rejects with the signal's reason and does not swallow a later value", async () => {
    const ch = new Channel<number>(1);
    const ac = new AbortController();
    const receiving = ch.receive({ signal: ac.signal });
    ac.abort(new Error("stop"));
    await expect(receiving).rejects.toThrow("stop");
    ch.trySend(1);
    expect(ch.tryReceive()).toEqual({ value: 1 });
    await expect(ch.receive({ signal: ac.signal })).rejects.toThrow("stop");
  });

  test("an aborted send is withdrawn: its value is never delivered", async () => {
    const ch = new Channel<number>(1);
    ch.trySend(1);
    const ac = new AbortController();
    const sending = ch.send(2, { signal: ac.signal });
    ac.abort(new Error("gave up"));
    await expect(sending).rejects.toThrow("gave up");
    expect(ch.tryReceive()).toEqual({ value: 1 });
    expect(ch.tryReceive()).toBeUndefined();
  });

  test("close: buffered values are still received, then receive rejects and waiters are released", async () => {
    const ch = new Channel<number>(2);
    ch.trySend(1);
    ch.close();
    expect(ch.closed).toBe(true);
    expect(ch.trySend(2)).toBe(false);
    await expect(ch.send(2)).rejects.toBeInstanceOf(ChannelClosedError);
    expect(await ch.receive()).toBe(1);
    await expect(ch.receive()).rejects.toBeInstanceOf(ChannelClosedError);

    const other = new Channel<number>(0);
    const waiting = other.receive();
    other.close();
    await expect(waiting).rejects.toBeInstanceOf(ChannelClosedError);
  });

  test("async iteration drains the channel and ends at close", async () => {
    const ch = new Channel<number>(3);
    ch.trySend(1);
    ch.trySend(2);
    ch.close();
    const seen: number[] = [];
    for await (const v of ch) seen.push(v);
    expect(seen).toEqual([1, 2]);
  });

  test("iterate(signal) stops quietly when the signal aborts", async () => {
    const ch = new Channel<number>(3);
    const ac = new AbortController();
    const seen: number[] = [];
    const loop = (async () => {
      for await (const v of ch.iterate(ac.signal)) seen.push(v);
    })();
    ch.trySend(1);
    await flushMicrotasks();
    ac.abort();
    await loop;
    expect(seen).toEqual([1]);
  });

  test("a negative capacity is refused", () => {
    expect(() => new Channel(-1)).toThrow(RangeError);
  });
});
