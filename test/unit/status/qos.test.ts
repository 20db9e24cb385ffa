import { describe, expect, test } from "bun:test";
import type { Container } from "../../../src/api/index.ts";
import { computePodQOS, parseQuantity } from "../../../src/status/qos.ts";
import { c, podWith } from "./states.ts";

describe("parseQuantity", () => {
  const cases: [string | number, number][] = [
    ["100m", 0.1],
    ["0.1", 0.1],
    ["2", 2],
    ["1k", 1000],
    ["1Ki", 1024],
    ["512Mi", 512 * 2 ** 20],
    ["1Gi", 2 ** 30],
    ["1e3", 1000],
    [".5", 0.5],
    [3, 3],
  ];
  for (const [input, expected] of cases) test(`${input}`, () => expect(parseQuantity(input)).toBeCloseTo(expected, 9));
  test("a malformed quantity is NaN", () => expect(parseQuantity("12 apples")).toBeNaN());
});

describe("computePodQOS", () => {
  const res = (requests?: Record<string, string>, limits?: Record<string, string>): Partial<Container> => ({ resources: { requests, limits } });
  const cases: { name: string; containers: Container[]; init?: Container[]; expected: string }[] = [
    { name: "no resources", containers: [c("a")], expected: "BestEffort" },
    { name: "only ephemeral-storage", containers: [c("a", res({ "ephemeral-storage": "1Gi" }))], expected: "BestEffort" },
    { name: "limits equal requests", containers: [c("a", res({ cpu: "100m", memory: "64Mi" }, { cpu: "0.1", memory: "64Mi" }))], expected: "Guaranteed" },
    { name: "limits only (requests default to them)", containers: [c("a", res(undefined, { cpu: "1", memory: "1Gi" }))], expected: "Guaranteed" },
    { name: "requests below limits", containers: [c("a", res({ cpu: "50m", memory: "64Mi" }, { cpu: "100m", memory: "64Mi" }))], expected: "Burstable" },
    { name: "only a cpu request", containers: [c("a", res({ cpu: "50m" }))], expected: "Burstable" },
    {
      name: "one guaranteed container and one without limits",
      containers: [c("a", res(undefined, { cpu: "1", memory: "1Gi" })), c("b")],
      expected: "Burstable",
    },
    {
      name: "an init container counts too",
      containers: [c("a", res(undefined, { cpu: "1", memory: "1Gi" }))],
      init: [c("i", res({ cpu: "10m" }))],
      expected: "Burstable",
    },
  ];
  for (const k of cases) {
    test(`${k.name} → ${k.expected}`, () => {
      expect(computePodQOS(podWith({ containers: k.containers, initContainers: k.init }))).toBe(k.expected as never);
    });
  }
});
