import { describe, expect, test } from "bun:test";
import { createLogTime } from "../../../src/lib/log-time.ts";

/** A wall clock with whole milliseconds (Date.now()) and a monotonic clock, both set by the test. */
function clocks(wallMs: number, monoMs: number) {
  const c = { wall: wallMs, mono: monoMs };
  const now = createLogTime(() => Math.floor(c.wall), () => c.mono);
  return { c, now };
}

describe("log time: wall-clock milliseconds with microseconds from the monotonic clock", () => {
  test("the fraction of a millisecond comes from the monotonic clock, in whole microseconds", () => {
    const { c, now } = clocks(1_700_000_000_123, 5_000);
    expect(now()).toBe(1_700_000_000_123);
    c.mono += 0.4567891;
    c.wall += 0.4567891;
    expect(now()).toBe(1_700_000_000_123.457);
    c.mono += 2.1;
    c.wall += 2.1;
    expect(now()).toBe(1_700_000_000_125.557);
  });

  const drifts: [string, number, number][] = [
    // [name, wall clock step beyond the monotonic clock (ms), expected reading after the step]
    ["a wall clock stepped forward moves the reading to its millisecond", 5_000, 1_700_000_005_123],
    ["a wall clock stepped back moves the reading back to its millisecond", -5_000, 1_699_999_995_123.999],
  ];
  for (const [name, step, want] of drifts) {
    test(name, () => {
      const { c, now } = clocks(1_700_000_000_123, 5_000);
      now();
      c.wall += step;
      expect(now()).toBe(want);
    });
  }

  test("readings stay inside the wall clock's millisecond while the clocks agree", () => {
    const { c, now } = clocks(1_700_000_000_000, 0);
    for (let i = 0; i < 1000; i++) {
      c.mono += 0.0137;
      c.wall += 0.0137;
      const t = now();
      expect(Math.floor(t)).toBe(Math.floor(c.wall));
    }
  });
});
