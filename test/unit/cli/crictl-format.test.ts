// bunlet crictl's output helpers against what crictl (Go's tabwriter, docker/go-units,
// encoding/json) prints, and its command-line parsing.
import { describe, expect, test } from "bun:test";
import { parseCommandArgs, UsageError, type FlagSpec } from "../../../src/cli/crictl/args.ts";
import { parseCriLogLine, parseSince, renderEntry, selectEntries } from "../../../src/cli/crictl/cri-log.ts";
import { goJson, humanDuration, humanSize, rfc3339Nano, table, truncatedId } from "../../../src/cli/crictl/format.ts";
import { normalizeRepoDigest, normalizeRepoTagPair } from "../../../src/cli/crictl/images.ts";

describe("crictl's output", () => {
  test("tables: columns at least 20 wide, 3 spaces of padding, the last column unpadded", () => {
    expect(table([["CONTAINER", "IMAGE", "STATE"], ["0123456789abc", "a-rather-long-image-name", "Running"]])).toBe(
      "CONTAINER" + " ".repeat(11) + "IMAGE" + " ".repeat(22) + "STATE\n" + "0123456789abc" + " ".repeat(7) + "a-rather-long-image-name" + " ".repeat(3) + "Running\n",
    );
  });

  test.each([
    [500, "Less than a second"],
    [1_000, "1 second"],
    [59_000, "59 seconds"],
    [60_000, "About a minute"],
    [119_000, "About a minute"],
    [120_000, "2 minutes"],
    [3_599_000, "59 minutes"],
    [3_600_000, "About an hour"],
    [5_400_000, "2 hours"],
    [47 * 3_600_000, "47 hours"],
    [3 * 86_400_000, "3 days"],
    [20 * 86_400_000, "2 weeks"],
    [90 * 86_400_000, "3 months"],
    [800 * 86_400_000, "2 years"],
  ])("HumanDuration(%d ms) = %s", (ms, text) => expect(humanDuration(ms)).toBe(text));

  test.each([
    [0, 3, "0B"],
    [999, 3, "999B"],
    [4_271_104, 3, "4.27MB"],
    [1_500_000_000, 3, "1.5GB"],
    [1_048_576, 4, "1.049MB"],
  ])("HumanSizeWithPrecision(%d, %d) = %s", (bytes, precision, text) => expect(humanSize(bytes, precision)).toBe(text));

  test("IDs are cut to 13 characters after an optional prefix", () => {
    expect(truncatedId("4c8e6bb1b0b5d9c3f1a2e3d4c5b6a7980112233445566778899aabbccddeeff0")).toBe("4c8e6bb1b0b5d");
    expect(truncatedId("sha256:5a8c5aa3b2f9e1d0c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1", "sha256:")).toBe("5a8c5aa3b2f9e");
  });

  test("RFC3339Nano drops trailing zeros of the fraction", () => {
    expect(rfc3339Nano(1_764_000_000_123_456_789n)).toBe("2025-11-24T16:00:00.123456789Z");
    expect(rfc3339Nano(1_764_000_000_120_000_000n)).toBe("2025-11-24T16:00:00.12Z");
    expect(rfc3339Nano(1_764_000_000_000_000_000n)).toBe("2025-11-24T16:00:00Z");
  });

  test("JSON as Go's encoding/json writes a map: sorted keys, HTML characters escaped", () => {
    expect(goJson({ status: { b: 1, a: "<&>" }, info: {} })).toBe('{\n  "info": {},\n  "status": {\n    "a": "\\u003c\\u0026\\u003e",\n    "b": 1\n  }\n}');
  });

  test("image rows: repository and tag from each repo tag, <none> for an untagged image", () => {
    expect(normalizeRepoDigest(["docker.io/library/busybox@sha256:abc"])).toEqual(["docker.io/library/busybox", "sha256:abc"]);
    expect(normalizeRepoDigest([])).toEqual(["<none>", "<none>"]);
    expect(normalizeRepoTagPair(["docker.io/library/busybox:1.36", "localhost:5000/b:latest"], "x")).toEqual([
      ["docker.io/library/busybox", "1.36"],
      ["localhost:5000/b", "latest"],
    ]);
    expect(normalizeRepoTagPair([], "docker.io/library/busybox")).toEqual([["docker.io/library/busybox", "<none>"]]);
    expect(normalizeRepoTagPair(["malformed"], "x")).toEqual([["errorRepoTag", "errorRepoTag"]]);
  });
});

describe("crictl's command line", () => {
  const flags: FlagSpec[] = [
    { name: "all", alias: "a", kind: "bool", usage: "" },
    { name: "quiet", alias: "q", kind: "bool", usage: "" },
    { name: "output", alias: "o", kind: "string", usage: "" },
    { name: "last", alias: "n", kind: "int", usage: "" },
    { name: "label", kind: "strings", usage: "" },
  ];

  test("long and short flags, =value and a separate value, combined short booleans, repeated slices", () => {
    const p = parseCommandArgs(["-aq", "--output=json", "-n", "3", "--label", "a=b", "--label=c=d", "ID"], flags);
    expect([...p.bools].sort()).toEqual(["all", "quiet"]);
    expect(p.strings.get("output")).toBe("json");
    expect(p.ints.get("last")).toBe(3);
    expect(p.lists.get("label")).toEqual(["a=b", "c=d"]);
    expect(p.args).toEqual(["ID"]);
  });

  test("the first argument ends the flags, so a command keeps its own", () => {
    expect(parseCommandArgs(["ctr", "ls", "-l", "--all"], flags).args).toEqual(["ctr", "ls", "-l", "--all"]);
    expect(parseCommandArgs(["-a", "--", "-q"], flags).args).toEqual(["-q"]);
  });

  test("unknown flags, missing values and bad numbers are usage errors", () => {
    expect(() => parseCommandArgs(["--nope"], flags)).toThrow(new UsageError("flag provided but not defined: --nope"));
    expect(() => parseCommandArgs(["-o"], flags)).toThrow(new UsageError("flag needs an argument: -o"));
    expect(() => parseCommandArgs(["-n", "x"], flags)).toThrow(new UsageError('invalid value "x" for flag -n: parse error'));
  });
});

describe("the CRI log format", () => {
  const lines = [
    "2026-11-23T10:00:00.000000001Z stdout F first",
    "2026-11-23T10:00:01.000000000Z stderr F oops",
    "2026-11-23T10:00:02.000000000Z stdout P par",
    "2026-11-23T10:00:02.100000000Z stdout F tial",
    "2026-11-23T10:00:03.000000000Z stdout F ",
  ];
  const entries = lines.map((l) => parseCriLogLine(l)!);

  test("lines parse into time, stream, partial and content; other lines do not", () => {
    expect(entries[2]).toMatchObject({ stream: "stdout", partial: true, content: "par" });
    expect(entries[4]).toMatchObject({ content: "", partial: false });
    expect(parseCriLogLine("not a log line")).toBeUndefined();
  });

  test("--tail counts full lines (a partial line joins the next), --stream and --since filter", () => {
    expect(selectEntries(entries, { tail: 2 }).map((e) => renderEntry(e, false)).join("")).toBe("partial\n\n");
    expect(selectEntries(entries, { tail: 0 })).toEqual([]);
    expect(selectEntries(entries, { tail: -1, stream: "stderr" }).map((e) => e.content)).toEqual(["oops"]);
    expect(selectEntries(entries, { tail: -1, sinceMs: Date.parse("2026-11-23T10:00:02Z") }).length).toBe(3);
    expect(renderEntry(entries[0], true)).toBe("2026-11-23T10:00:00.000000001Z first\n");
  });

  test("--since takes an RFC3339 time or a duration back from now", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(parseSince("2026-11-23T10:00:00Z", now)).toBe(Date.parse("2026-11-23T10:00:00Z"));
    expect(parseSince("42m", now)).toBe(now - 42 * 60_000);
    expect(parseSince("1h30m", now)).toBe(now - 90 * 60_000);
    expect(() => parseSince("yesterday", now)).toThrow('invalid since value "yesterday"');
  });
});
