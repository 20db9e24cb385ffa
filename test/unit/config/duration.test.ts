import { describe, expect, test } from "bun:test";
import { DurationError, parseDuration } from "../../../src/config/duration.ts";
import { formatGoDuration } from "../../../src/lib/index.ts";

describe("parseDuration reads Go durations into milliseconds", () => {
  const good: [string, number][] = [
    ["0", 0],
    ["+0", 0],
    ["-0", 0],
    ["0s", 0],
    ["20s", 20_000],
    ["1m", 60_000],
    ["300ms", 300],
    ["1h2m3.5s", 3_723_500],
    ["1.5h", 5_400_000],
    [".5s", 500],
    ["5.s", 5_000],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["1500μs", 1.5],
    ["2000000ns", 2],
    ["1.1s", 1_100],
    ["1m30s", 90_000],
    ["+2s", 2_000],
    ["1h1h", 7_200_000],
  ];
  for (const [input, ms] of good) {
    test(`${JSON.stringify(input)} is ${ms} ms`, () => expect(parseDuration(input)).toBe(ms));
  }

  const bad: [string, string][] = [
    ["", 'invalid duration ""'],
    ["abc", 'invalid duration "abc"'],
    ["5", 'missing unit in duration "5"'],
    ["1m5", 'missing unit in duration "1m5"'],
    ["5x", 'unknown unit "x" in duration "5x"'],
    ["5 s", 'unknown unit " s" in duration "5 s"'],
    ["5S", 'unknown unit "S" in duration "5S"'],
    [".s", 'invalid duration ".s"'],
    ["-5s", 'negative duration "-5s"'],
    ["s", 'invalid duration "s"'],
    ["9999999999h", 'invalid duration "9999999999h"'],
  ];
  for (const [input, message] of bad) {
    test(`${JSON.stringify(input)} is rejected: ${message}`, () => {
      expect(() => parseDuration(input)).toThrow(DurationError);
      expect(() => parseDuration(input)).toThrow(message);
    });
  }
});

describe("Go's Duration.String() (lib's formatGoDuration) reads back as the same duration", () => {
  const cases = [0, 300, 1.5, 1_500, 20_000, 60_000, 120_000, 3_723_500];
  test("what formatGoDuration writes, parseDuration reads back", () => {
    for (const ms of cases) expect(parseDuration(formatGoDuration(ms))).toBe(ms);
  });
});
