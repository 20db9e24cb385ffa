import { describe, expect, test } from "bun:test";
import { kObj, podRef } from "../../../src/api/index.ts";
import { createLogger } from "../../../src/lib/index.ts";
import { makePod } from "../../fixtures/pods.ts";

function lineOf(format: "text" | "json", fields: Record<string, unknown>): string {
  const lines: string[] = [];
  createLogger({ format, pid: 1, now: () => 0, write: (l) => void lines.push(l) }).info("m", fields);
  return lines[0]!;
}
const textTail = (line: string) => line.slice(line.indexOf('"m"') + 3);

describe("a pod in a log line is klog.KObj", () => {
  const pod = makePod({ name: "web", namespace: "default" });
  const cases: [string, Record<string, unknown>, string, string][] = [
    // [name, fields, text (klog), JSON (component-base)]
    ["a pod is ns/name, quoted, in text and an object in JSON", { pod: podRef(pod) }, ' pod="default/web"', '"pod":{"name":"web","namespace":"default"}'],
    ["without a namespace only the name is written", { pod: kObj({ name: "node-a" }) }, ' pod="node-a"', '"pod":{"name":"node-a"}'],
    ["a list of pods is KObjSlice: bare ns/name in text, objects in JSON", { pods: [kObj({ name: "a", namespace: "x" }), kObj({ name: "b", namespace: "y" })] },
      " pods=[x/a y/b]", '"pods":[{"name":"a","namespace":"x"},{"name":"b","namespace":"y"}]'],
    ["an empty list of pods", { pods: [] }, " pods=[]", '"pods":[]'],
  ];
  for (const [name, fields, text, json] of cases) {
    test(name, () => {
      expect(textTail(lineOf("text", fields))).toBe(text);
      expect(lineOf("json", fields)).toEndWith(`"v":0,${json}}`);
    });
  }

  test("String() of a reference is the text form, for messages and keys", () => {
    expect(String(podRef(pod))).toBe("default/web");
    expect(`pod ${podRef(pod)}`).toBe("pod default/web");
  });
});
