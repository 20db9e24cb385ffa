import { describe, expect, test } from "bun:test";
import { freeRotatedLogName, nextCheckDelayMs, planLogCap, planRotation, rotatedLogName } from "../../../src/logrotation/policy.ts";

describe("planRotation: the kubelet's removeExcessLogs, cleanupUnusedLogs and compression", () => {
  // container_log_manager_test.go TestRemoveExcessLog: the files are sorted, the oldest go first.
  const logs = ["test-log-3", "test-log-1", "test-log-2", "test-log-4"];
  const cases: [string, number, string[]][] = [
    ["MaxFiles equal to 2 keeps no rotated file", 2, []],
    ["MaxFiles more than 2 keeps MaxFiles-2, the newest", 3, ["test-log-4"]],
    ["MaxFiles more than the number of files keeps all", 6, ["test-log-1", "test-log-2", "test-log-3", "test-log-4"]],
  ];
  for (const [name, max, kept] of cases) {
    test(name, () => {
      const plan = planRotation(logs, max);
      expect(plan.excess).toEqual(["test-log-1", "test-log-2", "test-log-3", "test-log-4"].filter((f) => !kept.includes(f)));
      expect(plan.compress).toEqual(kept);
    });
  }

  test("TestCleanupUnusedLog: temporary files and originals whose .gz exists are unused", () => {
    const plan = planRotation(["test-log-1", "test-log-2", "test-log-3", "test-log-4", "test-log-1.gz", "test-log-2.tmp", "test-log-3.gz.tmp"], 10);
    expect(plan.unused.sort()).toEqual(["test-log-1", "test-log-2.tmp", "test-log-3.gz.tmp"]);
    expect(plan.compress).toEqual(["test-log-2", "test-log-3", "test-log-4"]);
    expect(plan.excess).toEqual([]);
  });

  test("TestRotateLogs shape: with MaxFiles 3 one rotated file stays, gzipped before the next rotation", () => {
    const plan = planRotation(["0.log.20260101-000000.gz", "0.log.20260101-000001"], 3);
    expect(plan.excess).toEqual(["0.log.20260101-000000.gz"]);
    expect(plan.compress).toEqual(["0.log.20260101-000001"]);
  });

  test("already compressed files are not compressed again", () => {
    expect(planRotation(["a.log.1.gz", "a.log.2.gz"], 5).compress).toEqual([]);
  });
});

describe("rotated file names", () => {
  test("<log>.YYYYMMDD-hhmmss in local time, as Go's 20060102-150405", () => {
    const ms = new Date(2026, 10, 24, 1, 2, 3).getTime();
    expect(rotatedLogName("/var/log/pods/ns_p_u/c/0.log", ms)).toBe("/var/log/pods/ns_p_u/c/0.log.20261124-010203");
  });
  test("a second rotation within one second gets the milliseconds appended instead of overwriting the first", () => {
    const ms = new Date(2026, 10, 24, 1, 2, 3, 45).getTime();
    expect(freeRotatedLogName("0.log", ms, [])).toBe("0.log.20261124-010203");
    expect(freeRotatedLogName("0.log", ms, ["0.log.20261124-010203"])).toBe("0.log.20261124-010203.045");
    expect(freeRotatedLogName("0.log", ms, ["0.log.20261124-010203.gz"])).toBe("0.log.20261124-010203.045");
    expect(freeRotatedLogName("0.log", ms, ["0.log.20261124-010203.gz", "0.log.20261124-010203.045"])).toBeUndefined();
  });
  test("files of one second keep their age order, gzipped or not", () => {
    const plan = planRotation(["0.log.20261124-010203.045", "0.log.20261124-010203.gz", "0.log.20261124-010202.gz"], 3);
    expect(plan.excess).toEqual(["0.log.20261124-010202.gz", "0.log.20261124-010203.gz"]);
    expect(plan.compress).toEqual(["0.log.20261124-010203.045"]);
  });
});

describe("nextCheckDelayMs: a log is looked at again before it can cross its size", () => {
  const MI = 1024 * 1024;
  const base = { maxSize: 10 * MI, monitorIntervalMs: 10_000 };
  const cases: [string, Parameters<typeof nextCheckDelayMs>[0], number][] = [
    ["first look: 500 ms, to measure the rate", { ...base, size: 0, elapsedMs: 0 }, 500],
    ["first look at a log that has lines: 500 ms too", { ...base, size: 4096, elapsedMs: 0 }, 500],
    ["still empty after 500 ms: twice that", { ...base, size: 0, previousSize: 0, elapsedMs: 500 }, 1_000],
    ["still empty after 4 s: twice that", { ...base, size: 0, previousSize: 0, elapsedMs: 4_000 }, 8_000],
    ["still empty after 8 s: the monitor interval", { ...base, size: 0, previousSize: 0, elapsedMs: 8_000 }, 10_000],
    ["empty for a monitor interval: the monitor interval", { ...base, size: 0, previousSize: 0, elapsedMs: 10_000 }, 10_000],
    // 6 MiB in the first second of a once empty log, 4 MiB left: 4 MiB / 6291 B/ms / 2 ≈ 333 ms.
    ["the first lines of a once empty log: its rate", { ...base, size: 6 * MI, previousSize: 0, elapsedMs: 1000 }, 333],
    ["a quiet log: the monitor interval", { ...base, size: 100, previousSize: 100, elapsedMs: 10_000 }, 10_000],
    ["a slow writer: capped at the monitor interval", { ...base, size: MI, previousSize: MI - 1000, elapsedMs: 10_000 }, 10_000],
    // 6 MB/s with 4 MiB of room: 4 MiB / 6000 B/ms / 2 ≈ 349 ms.
    ["6 MB/s with 4 MiB left: half the time to the limit", { ...base, size: 6 * MI, previousSize: 6 * MI - 6_000_000, elapsedMs: 1000 }, 349],
    ["6 MB/s at the limit: the shortest interval", { ...base, size: 10 * MI, previousSize: 10 * MI - 6_000_000, elapsedMs: 1000 }, 100],
    ["a shrunk file (rotated by someone else): the monitor interval", { ...base, size: 10, previousSize: 5 * MI, elapsedMs: 1000 }, 10_000],
  ];
  for (const [name, input, want] of cases) test(name, () => expect(nextCheckDelayMs(input)).toBe(want));
});

describe("planLogCap: the node-wide cap on pod logs", () => {
  const f = (path: string, size: number, mtimeMs: number, live = false) => ({ path, size, mtimeMs, live });
  test("no cap, or under the cap: nothing removed", () => {
    expect(planLogCap([f("a", 100, 1)], 0)).toEqual({ remove: [], over: 0 });
    expect(planLogCap([f("a", 100, 1)], 100)).toEqual({ remove: [], over: 0 });
  });
  test("oldest non-live files go first until the rest fits", () => {
    const files = [f("c/0.log", 50, 5, true), f("c/0.log.2.gz", 30, 3), f("c/0.log.1.gz", 30, 1), f("d/0.log", 30, 2)];
    expect(planLogCap(files, 100)).toEqual({ remove: ["c/0.log.1.gz", "d/0.log"], over: 0 });
  });
  test("live logs are never removed; what is left over is reported", () => {
    expect(planLogCap([f("a/0.log", 80, 1, true), f("b/0.log", 80, 2, true), f("b/0.log.1", 10, 0)], 100)).toEqual({ remove: ["b/0.log.1"], over: 60 });
  });
});
