import { describe, expect, test } from "bun:test";
import { canonicalJSON, cloneJson, deepEqual } from "../../../src/lib/index.ts";

describe("deepEqual (JSON value semantics)", () => {
  const cases: [string, unknown, unknown, boolean][] = [
    ["same scalars", 1, 1, true],
    ["different scalars", "1", 1, false],
    ["key order does not matter", { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ["an undefined value is an absent key", { a: 1, b: undefined }, { a: 1 }, true],
    ["an empty map differs from no map", { labels: {} }, {}, false],
    ["null is a value", { a: null }, {}, false],
    ["arrays compare in order", [1, 2], [2, 1], false],
    ["nested", { s: { c: [{ n: "x" }] } }, { s: { c: [{ n: "x" }] } }, true],
  ];
  test.each(cases)("%s", (_, a, b, want) => {
    expect(deepEqual(a, b)).toBe(want);
    expect(deepEqual(b, a)).toBe(want);
  });
});

describe("cloneJson", () => {
  test("a deep copy that shares nothing with the original", () => {
    const pod = { metadata: { name: "p", labels: { a: "1" } }, spec: { containers: [{ name: "c", args: ["x"] }] } };
    const copy = cloneJson(pod);
    expect(copy).toStrictEqual(pod);
    copy.metadata.labels.a = "2";
    copy.spec.containers[0]!.args.push("y");
    expect(pod.metadata.labels.a).toBe("1");
    expect(pod.spec.containers[0]!.args).toEqual(["x"]);
  });

  test("undefined stays undefined; keys whose value is undefined are dropped, as after the wire", () => {
    expect(cloneJson(undefined)).toBeUndefined();
    const copy = cloneJson({ a: 1, b: undefined, c: [null] });
    expect(Object.keys(copy)).toEqual(["a", "c"]);
    expect(copy.c).toEqual([null]);
    expect(deepEqual(copy, { a: 1, b: undefined, c: [null] })).toBe(true);
  });

  test("scalars come back as they were", () => {
    for (const v of [0, "", "s", true, false, null, 1.5]) expect(cloneJson(v)).toBe(v);
  });

  test("canonicalJSON of a copy is the original's", () => {
    const status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }], podIPs: [{ ip: "10.0.0.1" }] };
    expect(canonicalJSON(cloneJson(status))).toBe(canonicalJSON(status));
  });
});
