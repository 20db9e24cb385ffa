import { describe, expect, test } from "bun:test";
import { formatGoDuration } from "../../../src/lib/index.ts";

describe("durations print the way Go prints time.Duration", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [0.0005, "500ns"],
    [0.25, "250µs"],
    [1.5, "1.5ms"],
    [300, "300ms"],
    [1500, "1.5s"],
    [20_000, "20s"],
    [60_000, "1m0s"],
    [120_000, "2m0s"],
    [180_000, "3m0s"],
    [181_000, "3m1s"],
    [181_234, "3m1.234s"],
    [600_000, "10m0s"],
    [3_600_000, "1h0m0s"],
    [3_723_000, "1h2m3s"],
    [3_723_500, "1h2m3.5s"],
    [-1500, "-1.5s"],
  ];
  for (const [ms, want] of cases) test(`${ms} ms is ${want}`, () => expect(formatGoDuration(ms)).toBe(want));

  // The crash-loop backoff message shows these (back-off 10s ... 5m0s restarting failed container).
  test.each([
    [10_000, "10s"],
    [80_000, "1m20s"],
    [300_000, "5m0s"],
    [3_600_000, "1h0m0s"],
  ])("backoff of %d ms is %s", (ms, out) => expect(formatGoDuration(ms)).toBe(out));
});
