import { describe, expect, test } from "bun:test";
import { readYaml, YamlError } from "../../../src/lib/index.ts";

const scalar = (text: string) => (readYaml(`a: ${text}\n`) as { a: unknown }).a;

function yamlError(text: string): YamlError {
  try {
    readYaml(text);
  } catch (err) {
    if (err instanceof YamlError) return err;
    throw err;
  }
  throw new Error("expected a YamlError");
}

// Every row was checked against sigs.k8s.io/yaml v1.6.0 YAMLToJSON (go-yaml v2.4.4), which the
// kubelet uses for static manifests and its config file.
describe("plain scalars resolve by go-yaml v2's YAML 1.1 rules", () => {
  const table: [string, unknown][] = [
    ["yes", true],
    ["Yes", true],
    ["YES", true],
    ["no", false],
    ["No", false],
    ["NO", false],
    ["on", true],
    ["On", true],
    ["ON", true],
    ["off", false],
    ["Off", false],
    ["OFF", false],
    ["y", true],
    ["Y", true],
    ["n", false],
    ["N", false],
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["false", false],
    ["False", false],
    ["FALSE", false],
    ["yEs", "yEs"],
    ["~", null],
    ["null", null],
    ["Null", null],
    ["NULL", null],
    ["", null],
    ["0644", 420],
    ["0", 0],
    ["-0", 0],
    ["00", 0],
    ["08", 8],
    ["09", 9],
    ["0o17", 15],
    ["0O17", 15],
    ["0x1F", 31],
    ["0X1f", 31],
    ["-0x1F", -31],
    ["+0x1F", 31],
    ["0b101", 5],
    ["0B101", 5],
    ["-0b101", -5],
    ["+017", 15],
    ["1_000", 1000],
    ["1__0", 10],
    ["_1", "_1"],
    ["1_", 1],
    ["0x_1F", 31],
    ["1:20", "1:20"],
    ["1:20:30", "1:20:30"],
    ["-1:20", "-1:20"],
    ["1.5", 1.5],
    ["1.", 1],
    ["1.e5", 100000],
    [".5", 0.5],
    [".5e3", 500],
    ["+.5", 0.5],
    ["-.5", -0.5],
    [".e5", ".e5"],
    ["1e3", 1000],
    ["1E3", 1000],
    ["1e+3", 1000],
    ["1e-3", 0.001],
    ["1_0.5", 10.5],
    ["1e1_0", 10000000000],
    ["1e400", "1e400"],
    ["-1e400", "-1e400"],
    ["1e-400", 0],
    [".5e999", ".5e999"],
    ["18446744073709551616", 18446744073709552000],
    ["-9223372036854775809", -9223372036854776000],
    ["+18446744073709551615", 18446744073709552000],
    ["99999999999999999999", 100000000000000000000],
    ["2001-12-14", "2001-12-14"],
    ["2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"],
    ["2001-12-14 21:59:43.10", "2001-12-14 21:59:43.10"],
    ["2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 -5"],
    ["2002-12-14T21:59:43Z", "2002-12-14T21:59:43Z"],
    ["2001-13-14", "2001-13-14"],
    ["12:30", "12:30"],
    ["1.2.3", "1.2.3"],
    ["v1", "v1"],
    ["0.1", 0.1],
    ["0.30000000000000004", 0.30000000000000004],
    ["1e21", 1e+21],
    ["1e20", 100000000000000000000],
    ["123456789012345678901234567890.5", 1.2345678901234568e+29],
    ["+", "+"],
    [".", "."],
    ["..", ".."],
    ["0x", "0x"],
    ["0b", "0b"],
    ["0o", "0o"],
    ["1e", "1e"],
    ["1E+", "1E+"],
    ["1_000.5e1_0", 10005000000000],
    ["0.000001", 0.000001],
    ["0.0000001", 1e-7],
    ["Inf", "Inf"],
    ["NaN", "NaN"],
    ["=", "="],
    ["64MB", "64MB"],
    ["500m", "500m"],
    ["1Gi", "1Gi"],
    ["+1", 1],
    ["-1", -1],
    ["--1", "--1"],
    ["0.", 0],
    ["-0.0", -0],
  ];
  test.each(table)("%p is %p", (text, expected) => expect(scalar(text)).toEqual(expected));

  test("quoted and block scalars stay strings", () => {
    for (const text of ["'yes'", '"0644"', "'1:20'", "'~'", "'1e3'"]) expect(typeof scalar(text)).toBe("string");
    expect(readYaml("a: |\n  yes\n")).toEqual({ a: "yes\n" });
    expect(readYaml("a: >\n  0644\n")).toEqual({ a: "0644\n" });
  });

  test("flow collections resolve the same way", () => {
    expect(readYaml("a: [yes, no, 0644, 1:20]\n")).toEqual({ a: [true, false, 420, "1:20"] });
    expect(readYaml('{"a": 1, "b": [true, null, 1.5, "x"]}')).toEqual({ a: 1, b: [true, null, 1.5, "x"] });
  });

  test("integers beyond 2^53 become the nearest double (Go keeps all 64 bits)", () => {
    expect(scalar("9007199254740993")).toBe(9007199254740992);
    expect(scalar("18446744073709551615")).toBe(2 ** 64);
  });

  test.each([
    [".inf", "json: unsupported value: +Inf"],
    ["-.Inf", "json: unsupported value: -Inf"],
    [".nan", "json: unsupported value: NaN"],
  ])("%s cannot be JSON", (text, message) => {
    const err = yamlError(`spec:\n  x: ${text}\n`);
    expect([err.path, err.message]).toEqual(["spec.x", message]);
  });
});

describe("explicit tags", () => {
  test.each([
    ["!!int '12'", 12],
    ["!!float 1", 1],
    ["!!float '1.5'", 1.5],
    ["!!bool yes", true],
    ["!!str 12", "12"],
    ["!!null ''", null],
    ["!!binary aGVsbG8=", "hello"],
    ["!!binary |\n  aGVs\n  bG8=", "hello"],
    ["!!timestamp 2001-12-14", "2001-12-14"],
    ["!foo 12", "12"],
  ])("%s is %p", (text, expected) => expect(scalar(text)).toEqual(expected));

  test.each([
    ["!!int abc", "cannot decode !!str `abc` as a !!int"],
    ["!!bool '1'", "cannot decode !!int `1` as a !!bool"],
    ["!!timestamp 12", "cannot decode !!int `12` as a !!timestamp"],
    ["!!binary '!!'", "!!binary value contains invalid base64 data"],
  ])("%s is refused", (text, message) => expect(yamlError(`a: ${text}\n`).message).toBe(message));
});

describe("map keys become strings as sigs.k8s.io/yaml makes them", () => {
  const table: [string, string][] = [
    ["y", "true"],
    ["n", "false"],
    ["yes", "true"],
    ["on", "true"],
    ["off", "false"],
    ["1", "1"],
    ["1.5", "1.5"],
    ["1e3", "1000"],
    ["0.1", "0.1"],
    ["1e6", "1e+06"],
    ["123456.0", "123456"],
    ["1234567.0", "1.234567e+06"],
    ["0.0001", "0.0001"],
    ["0.00001", "1e-05"],
    ["123456789.0", "1.2345679e+08"],
    ["true", "true"],
    ["0x10", "16"],
    ["010", "8"],
    ["-1", "-1"],
    ["2001-12-14", "2001-12-14"],
    [".inf", ".inf"],
    [".nan", ".nan"],
    ["-.inf", "-.inf"],
    ["1e21", "1e+21"],
    ["3.14159265358979", "3.1415927"],
    ["<<q", "<<q"],
  ];
  test.each(table)("key %p is %p", (key, expected) => expect(Object.keys(readYaml(`${key}: v\n`) as object)).toEqual([expected]));

  test.each([
    ["~: v\n", "unsupported map key of type: <nil>"],
    ["null: v\n", "unsupported map key of type: <nil>"],
    ["9223372036854775808: v\n", "unsupported map key of type: uint64, key: 9223372036854775808"],
    ["? [1, 2]\n: x\n", "invalid map key: a sequence"],
    ["? {a: 1}\n: x\n", "invalid map key: a mapping"],
  ])("%p is refused", (text, message) => expect(yamlError(text).message).toBe(message));

  test("a key given twice is refused, also when two spellings make the same key", () => {
    expect(yamlError("a: 1\na: 2\n").message).toBe("Map keys must be unique at line 2, column 1");
    expect(yamlError("m:\n  yes: 1\n  on: 2\n")).toMatchObject({ path: "m", message: "Map keys must be unique at line 3, column 3" });
  });

  test("__proto__ is an ordinary key", () => {
    const v = readYaml("__proto__: {polluted: true}\n") as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("anchors, aliases and merge keys as go-yaml v2 applies them", () => {
  test.each([
    ["base: &b {p: 1, q: 2}\nm:\n  <<: *b\n  q: 3\n", { p: 1, q: 3 }],
    // go-yaml v2 applies pairs in order: a merge after a key overrides it.
    ["base: &b {p: 1, q: 2}\nm:\n  q: 3\n  <<: *b\n", { p: 1, q: 2 }],
    // y is a boolean, so the key is "true".
    ["base: &b {x: 1, y: 2}\nm:\n  <<: *b\n", { x: 1, true: 2 }],
    ["a: &a {x: 1}\nb: &b {x: 2, z: 2}\nm:\n  <<: [*a, *b]\n", { x: 1, z: 2 }],
    ["m:\n  <<: {x: 1}\n  z: 0\n", { x: 1, z: 0 }],
    ["m:\n  '<<': 1\n", { "<<": 1 }],
  ])("%p", (text, m) => expect((readYaml(text) as { m: unknown }).m).toEqual(m));

  test("aliases repeat their anchor's value", () => {
    expect(readYaml("a: &x [1, yes]\nb: *x\n")).toEqual({ a: [1, true], b: [1, true] });
  });

  test.each([
    ["m:\n  <<: 1\n", "m", "map merge requires map or sequence of maps as the value"],
    ["a: &a\n  b: *a\n", "a.b.b", "anchor 'a' value contains itself"],
  ])("%p is refused", (text, path, message) => expect(yamlError(text)).toMatchObject({ path, message }));

  test("aliases expand at most 100 times (billion laughs)", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 6; i++) levels.push(`${"abcdef"[i]}: &${"abcdef"[i]} [${Array(10).fill(`*${"abcdef"[i - 1]}`).join(", ")}]`);
    expect(yamlError(`${levels.join("\n")}\n`).message).toBe("Excessive alias count indicates a resource exhaustion attack");
  });
});

/** An anchored list of `items` plain scalars, then `refs` keys that each alias it. */
function aliasBomb(items: number, refs: number): string {
  const list = Array.from({ length: items }, (_, i) => `x${i}`).join(", ");
  const aliases = Array.from({ length: refs }, (_, i) => `r${i}: *a`).join("\n");
  return `a: &a [${list}]\n${aliases}\n`;
}

// CVE-2019-11253: a few aliases of one large anchored value. Counting alias references (99 < 100)
// let the issue's bomb (100k items, 99 references) expand to 10M nodes (4.6 s, +671 MiB); go-yaml
// caps the share of decoded nodes that come from aliases instead (allowedAliasRatio).
describe("CVE-2019-11253: aliases may not dominate the decoded document", () => {
  test("a 10k-item anchored list referenced 99 times is refused in well under a second", () => {
    const text = aliasBomb(10_000, 99);
    readYaml(aliasBomb(10_000, 0)); // warm the parser up, as a running agent is
    const started = performance.now();
    const err = yamlError(text);
    const tookMs = performance.now() - started;
    expect(err).toMatchObject({ path: "", message: expect.stringMatching(/^document contains excessive aliasing: \d+ of its first \d+ nodes come from aliases/) });
    // About 150 ms on an idle 2-core machine; the bound leaves room for a loaded one.
    expect(tookMs).toBeLessThan(1_000);
  });

  test("the issue's bomb (100k items, 99 references) costs about what parsing its text costs, not 10M nodes", () => {
    const plain = aliasBomb(100_000, 0);
    let started = performance.now();
    readYaml(plain);
    const parseMs = performance.now() - started;
    const rssBefore = process.memoryUsage().rss;
    started = performance.now();
    const err = yamlError(aliasBomb(100_000, 99));
    const tookMs = performance.now() - started;
    const grewMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    expect(err.message).toStartWith("document contains excessive aliasing");
    // Decoding stops after ~0.85M nodes: the refusal costs little more than the parse itself.
    expect(tookMs).toBeLessThan(parseMs * 2 + 300);
    expect(grewMiB).toBeLessThan(250);
  });

  test.each([
    ["a few small anchors used a few times", "base: &b {cpu: 1, mem: 2}\nx: *b\ny: *b\nz: {<<: *b, cpu: 3}\n"],
    ["a 1000-item list referenced 99 times (99k nodes, under go-yaml's 400k floor)", aliasBomb(1_000, 99)],
  ])("%s still decode", (_, text) => {
    expect(() => readYaml(text)).not.toThrow();
  });

  test("the nodes an alias expands to are counted, not only the references", () => {
    const doc = readYaml(aliasBomb(1_000, 99)) as Record<string, unknown[]>;
    expect(doc.r98).toHaveLength(1_000);
    expect(doc.r98[999]).toBe("x999");
  });
});

describe("invalid UTF-8 is refused, as go-yaml's reader refuses it", () => {
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
  test.each([
    ["a lone continuation byte", bytes("a: ", [0x80], "\n"), "invalid leading UTF-8 octet at byte 3"],
    ["a truncated sequence at the end", bytes("a: b", [0xe2, 0x82]), "incomplete UTF-8 octet sequence at byte 4"],
    ["a bad trailing byte", bytes("a: ", [0xc3, 0x28]), "invalid trailing UTF-8 octet at byte 4"],
    ["an overlong encoding", bytes("a: ", [0xc0, 0xaf]), "invalid length of a UTF-8 sequence at byte 3"],
    ["a surrogate", bytes("a: ", [0xed, 0xa0, 0x80]), "invalid Unicode character at byte 3"],
  ])("%s", (_, input, message) => {
    expect(() => readYaml(input)).toThrow(message);
  });

  test("valid multi-byte text decodes", () => {
    expect(readYaml(Buffer.from("a: grüße ✓ 🙂\n"))).toEqual({ a: "grüße ✓ 🙂" });
  });
});

describe("documents", () => {
  test("the first document counts; none is undefined", () => {
    expect(readYaml("x: 1\n---\ny: 2\n")).toEqual({ x: 1 });
    expect(readYaml("")).toBeUndefined();
    expect(readYaml("# only a comment\n")).toBeUndefined();
    expect(readYaml("a:\n")).toEqual({ a: null });
  });

  test("a syntax error names its line", () => {
    expect(yamlError("a: [1, 2\n")).toMatchObject({ path: "", message: expect.stringContaining("at line 2, column 1") });
  });
});
