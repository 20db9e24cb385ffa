import { describe, expect, test } from "bun:test";
import { modeOf, transition, type PlegModeAction, type PlegModeInput, type PlegModeState } from "../../../src/pleg/mode.ts";

const limits = { maxStreamRetries: 5, reprobeInitialMs: 30_000, reprobeMaxMs: 600_000 };

describe("PLEG mode transitions", () => {
  const cases: [string, PlegModeState, PlegModeInput, PlegModeState, PlegModeAction[]][] = [
    ["a connected stream resets the failure count", { kind: "evented", failures: 3 }, "stream-established", { kind: "evented", failures: 0 }, ["count-success"]],
    ["a failed stream is counted and forces a relist", { kind: "evented", failures: 0 }, "stream-failed", { kind: "evented", failures: 1 }, ["count-error", "force-relist"]],
    ["the fourth failure in a row still retries", { kind: "evented", failures: 3 }, "stream-failed", { kind: "evented", failures: 4 }, ["count-error", "force-relist"]],
    ["the fifth failure in a row falls back", { kind: "evented", failures: 4 }, "stream-failed", { kind: "fallen-back", probeDelayMs: 30_000 }, ["count-error", "force-relist", "fall-back"]],
    ["a due probe opens a stream", { kind: "fallen-back", probeDelayMs: 60_000 }, "probe-due", { kind: "probing", probeDelayMs: 60_000 }, []],
    ["a failed probe doubles the wait", { kind: "probing", probeDelayMs: 60_000 }, "stream-failed", { kind: "fallen-back", probeDelayMs: 120_000 }, ["count-error"]],
    ["the wait stops doubling at the max", { kind: "probing", probeDelayMs: 480_000 }, "stream-failed", { kind: "fallen-back", probeDelayMs: 600_000 }, ["count-error"]],
    ["a probe that stays up switches back", { kind: "probing", probeDelayMs: 120_000 }, "stream-established", { kind: "evented", failures: 0 }, ["count-success", "switch-back"]],
    ["generic only ignores stream news", { kind: "generic-only" }, "stream-failed", { kind: "generic-only" }, []],
    ["a probe is not due in evented mode", { kind: "evented", failures: 1 }, "probe-due", { kind: "evented", failures: 1 }, []],
  ];
  for (const [name, from, input, to, actions] of cases) {
    test(name, () => {
      expect(transition(from, input, limits)).toEqual({ state: to, actions });
    });
  }

  test("only the evented state reports evented mode", () => {
    expect(modeOf({ kind: "evented", failures: 4 })).toBe("evented");
    expect(modeOf({ kind: "probing", probeDelayMs: 1 })).toBe("generic");
    expect(modeOf({ kind: "fallen-back", probeDelayMs: 1 })).toBe("generic");
    expect(modeOf({ kind: "generic-only" })).toBe("generic");
  });
});
