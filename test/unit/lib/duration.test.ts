import { expect, test } from "bun:test";
import { formatGoDuration } from "../../../src/pleg/index.ts";

test("durations print the way Go prints time.Duration", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [0.25, "250µs"],
    [300, "300ms"],
    [1500, "1.5s"],
    [180_000, "3m0s"],
    [181_000, "3m1s"],
    [181_234, "3m1.234s"],
    [600_000, "10m0s"],
    [3_600_000, "1h0m0s"],
    [3_723_000, "1h2m3s"],
  ];
  for (const [ms, want] of cases) expect(formatGoDuration(ms)).toBe(want);
});
