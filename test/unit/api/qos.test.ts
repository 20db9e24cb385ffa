import { describe, expect, test } from "bun:test";
import { computePodQOS, type Container, type Pod, type ResourceRequirements } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";

// pkg/apis/core/v1/helper/qos TestComputePodQOS (container-level cases).
const list = (cpu: string, memory: string) => ({ cpu, memory });
const guaranteed: ResourceRequirements = {
  requests: { cpu: "100m", memory: "100Mi", "ephemeral-storage": "10Gi" },
  limits: list("100m", "100Mi"),
};
const bestEffort: ResourceRequirements[] = [
  {},
  { requests: list("0", "0") },
  { requests: list("0", "0"), limits: list("0", "0") },
  { requests: { "ephemeral-storage": "10Gi" } },
  { requests: { "ephemeral-storage": "10Gi" }, limits: { "ephemeral-storage": "10Gi" } },
];
const burstable: ResourceRequirements[] = [
  { requests: list("100m", "100Mi"), limits: list("200m", "200Mi") },
  { requests: list("100m", "100Mi"), limits: list("100m", "200Mi") },
  { requests: list("100m", "100Mi"), limits: list("200m", "100Mi") },
  { requests: list("100m", "100Mi") },
  { requests: list("100m", "100Mi"), limits: { cpu: "100m" } },
];

const containers = (...resources: ResourceRequirements[]): Container[] => resources.map((r, i) => ({ name: `c${i}`, resources: r }));
const pod = (regular: Container[], init: Container[] = []): Pod => makePod({ name: "p", spec: { containers: regular, initContainers: init } });

const cases: [string, Pod, string][] = [
  ["guaranteed", pod(containers(guaranteed)), "Guaranteed"],
  ...bestEffort.map((r, i): [string, Pod, string] => [`best-effort-${i}`, pod(containers(r)), "BestEffort"]),
  ...burstable.map((r, i): [string, Pod, string] => [`burstable-${i}`, pod(containers(r)), "Burstable"]),
  ["2c-guaranteed", pod(containers(guaranteed, guaranteed)), "Guaranteed"],
  ["2c-best-effort", pod(containers(bestEffort[0], bestEffort[1])), "BestEffort"],
  ["2c-burstable", pod(containers(burstable[0], burstable[1])), "Burstable"],
];
const firsts = [guaranteed, bestEffort[0], burstable[0]];
const seconds = [guaranteed, bestEffort[1], burstable[1]];
firsts.forEach((a, i) =>
  seconds.forEach((b, j) => {
    if (i !== j) cases.push([`2c-mixed-burstable-${i}-${j}`, pod(containers(a, b)), "Burstable"]);
  }),
);
// The same pairs with the second container as an init container.
for (const [name, p, expected] of cases.filter(([n]) => n.startsWith("2c-"))) {
  cases.push([`${name}-init`, pod(p.spec.containers.slice(0, 1), p.spec.containers.slice(1)), expected]);
}

describe("computePodQOS", () => {
  test.each(cases)("%s is %s", (_name, p, expected) => expect(computePodQOS(p)).toBe(expected as never));

  test("equal quantities in different forms are equal", () => {
    expect(computePodQOS(pod(containers({ requests: list("0.1", "1Gi"), limits: list("100m", "1024Mi") })))).toBe("Guaranteed");
  });
});
