import { describe, expect, test } from "bun:test";
import { describePlegStatus } from "../../../src/pleg/index.ts";

const since = Date.UTC(2026, 10, 23, 22, 16, 42, 761);

describe("describePlegStatus (the [i]pleg line of /healthz?verbose)", () => {
  test("evented mode: mode, since when and how long ago, reason, relist period", () => {
    const line = describePlegStatus(
      { mode: "evented", since, reason: "EventedPLEG feature gate is on", streamFailures: 0, relistPeriodMs: 300_000 },
      since + 192_400,
    );
    expect(line).toBe("evented mode since 2026-11-23T22:16:42Z (3m12s ago); reason: EventedPLEG feature gate is on; relisting every 5m0s");
  });

  test("after a fallback: the failed streams and the next probe in seconds", () => {
    const line = describePlegStatus(
      {
        mode: "generic",
        since,
        reason: "GetContainerEvents failed 5 times in a row (last error: unimplemented)",
        streamFailures: 0,
        nextProbeAt: since + 30_000,
        relistPeriodMs: 1000,
      },
      since + 2_500,
    );
    expect(line).toBe(
      "generic mode since 2026-11-23T22:16:42Z (3s ago); reason: GetContainerEvents failed 5 times in a row (last error: unimplemented); " +
        "relisting every 1s; next probe of the event stream in 28s",
    );
  });

  test("evented mode while streams fail counts them", () => {
    const line = describePlegStatus({ mode: "evented", since, reason: "r", streamFailures: 2, relistPeriodMs: 300_000 }, since);
    expect(line).toBe("evented mode since 2026-11-23T22:16:42Z (0s ago); reason: r; relisting every 5m0s; 2 event streams failed in a row");
  });
});
