import { describe, expect, test } from "bun:test";
import { createLogger, type Fields } from "../../../src/lib/index.ts";

// 2023-11-14T22:13:20.123456Z; the text format writes local time, so the tests run in UTC.
process.env.TZ = "UTC";
const NOW = 1_700_000_000_123.456;

function capture(format: "text" | "json", verbosity = 0) {
  const lines: string[] = [];
  const log = createLogger({ format, verbosity, pid: 1234, now: () => NOW, write: (l) => void lines.push(l) });
  return { log, lines };
}

class PodRef {
  constructor(readonly namespace: string, readonly name: string) {}
  toString() {
    return `${this.namespace}/${this.name}`;
  }
}

describe("text lines are klog's", () => {
  test("the header: severity, month-day, time with microseconds, pid in 7 columns, file:line", () => {
    const { log, lines } = capture("text");
    log.info("Hello");
    expect(lines[0]).toMatch(/^I1114 22:13:20\.123456 {4}1234 log\.test\.ts:\d+\] "Hello"$/);
  });

  test("the severity letter follows the level; debug lines are I and shown up to --v", () => {
    const { log, lines } = capture("text", 2);
    log.info("i");
    log.warn("w");
    log.error("e");
    log.debug("d2", {}, 2);
    log.debug("d3", {}, 3);
    expect(lines.map((l) => l.slice(0, 1) + " " + l.slice(l.indexOf("] ") + 2))).toEqual(['I "i"', 'W "w"', 'E "e"', 'I "d2"']);
  });

  const cases: [string, unknown, string][] = [
    ["a string is quoted", "web", ' key="web"'],
    ["an empty string is quoted", "", ' key=""'],
    ["quotes and backslashes are escaped", 'say "hi" \\ bye', ' key="say \\"hi\\" \\\\ bye"'],
    ["control characters use Go escapes", "a\tb\rc\x1bd\x7f", ' key="a\\tb\\rc\\x1bd\\x7f"'],
    ["printable unicode stays, invisible unicode is escaped", "é✓\u200b", ' key="é✓\\u200b"'],
    ["an integer is bare", 42, " key=42"],
    ["a fraction is bare", 0.25, " key=0.25"],
    ["a boolean is bare", true, " key=true"],
    ["null is <nil>", null, " key=<nil>"],
    ["an error is its message, quoted", new Error("dial tcp 1.2.3.4:80: connect: connection refused"), ' key="dial tcp 1.2.3.4:80: connect: connection refused"'],
    ["a list is %+v", ["default/a", "kube-system/b"], " key=[default/a kube-system/b]"],
    ["an empty list", [], " key=[]"],
    ["an object is %+v of a struct", { name: "web", restarts: 2, ready: false }, " key={name:web restarts:2 ready:false}"],
    ["a Map is %+v of a map, sorted", new Map([["b", 2], ["a", 1]]), " key=map[a:1 b:2]"],
    ["nested values", { pods: ["a", "b"], err: new Error("x"), none: null }, " key={pods:[a b] err:x none:<nil>}"],
    ["a value with its own toString is a Stringer, quoted", new PodRef("default", "web"), ' key="default/web"'],
    ["a multi-line string is an indented block", "line 1\nline 2", " key=<\n\tline 1\n\tline 2\n >"],
    ["a trailing line break gets no extra line", "line 1\nline 2\n", " key=<\n\tline 1\n\tline 2\n >"],
  ];
  for (const [name, value, want] of cases) {
    test(name, () => {
      const { log, lines } = capture("text");
      log.info("m", { key: value });
      expect(lines[0].slice(lines[0].indexOf('"m"') + 3)).toBe(want);
    });
  }

  test("the message is always quoted, even across lines", () => {
    const { log, lines } = capture("text");
    log.info('two\nlines "here"');
    expect(lines[0]).toEndWith('] "two\\nlines \\"here\\""');
  });

  test("err comes first, then the logger's fields, then the call's; the call overrides; undefined is left out", () => {
    const { log, lines } = capture("text");
    log.with({ pod: "default/web", podUID: "u1" }).error("Error syncing pod", { podUID: "u2", reason: undefined, err: new Error("boom") });
    expect(lines[0]).toEndWith('] "Error syncing pod" err="boom" pod="default/web" podUID="u2"');
  });
});

describe("JSON lines are component-base's", () => {
  const parse = (line: string) => JSON.parse(line) as Fields;
  test("ts (float milliseconds), caller, msg, v, err, then the keys, in that order", () => {
    const { log, lines } = capture("json");
    log.with({ pod: "default/web" }).info("Pod is running", { containerName: "app", err: new Error("late") });
    expect(lines[0]).toMatch(/^\{"ts":1700000000123\.456,"caller":"log\.test\.ts:\d+","msg":"Pod is running","v":0,"err":"late","pod":"default\/web","containerName":"app"\}$/);
  });

  const cases: [string, (l: ReturnType<typeof capture>["log"]) => void, Fields][] = [
    ["an info line has v 0", (l) => l.info("m"), { msg: "m", v: 0 }],
    ["a warning is an info line with v 0", (l) => l.warn("m"), { msg: "m", v: 0 }],
    ["a debug line carries its verbosity", (l) => l.debug("m", {}, 2), { msg: "m", v: 2 }],
    ["an error has no v", (l) => l.error("m", { err: new Error("boom") }), { msg: "m", err: "boom" }],
    ["lists stay lists, objects stay objects", (l) => l.info("m", { pods: ["a", "b"], spec: { n: 1 } }), { msg: "m", v: 0, pods: ["a", "b"], spec: { n: 1 } }],
    ["numbers, booleans and null keep their JSON type", (l) => l.info("m", { n: 1.5, b: false, z: null }), { msg: "m", v: 0, n: 1.5, b: false, z: null }],
    ["an error inside a value is its message", (l) => l.info("m", { errs: [new Error("a")] }), { msg: "m", v: 0, errs: ["a"] }],
    ["undefined is left out", (l) => l.info("m", { gone: undefined }), { msg: "m", v: 0 }],
  ];
  for (const [name, act, want] of cases) {
    test(name, () => {
      const { log, lines } = capture("json", 2);
      act(log);
      const { ts, caller, ...rest } = parse(lines[0]);
      expect(ts).toBe(NOW);
      expect(String(caller)).toMatch(/^log\.test\.ts:\d+$/);
      expect(rest).toEqual(want);
    });
  }

  test("a debug line above --v is not written", () => {
    const { log, lines } = capture("json", 1);
    log.debug("m", {}, 2);
    expect(lines).toEqual([]);
  });
});
