import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { choosePodCIDR, type PodCIDRChoice } from "../../../src/network/pod-cidr.ts";

const node = (spec: Node["spec"]): Node => ({ metadata: { name: "n1" }, spec });

describe("the pod CIDR a node's pods get", () => {
  const cases: [string, string, Node | undefined, PodCIDRChoice][] = [
    ["--pod-cidr wins over the Node's", "10.77.0.0/16", node({ podCIDR: "10.90.1.0/24", podCIDRs: ["10.90.1.0/24"] }), { source: "flag", cidrs: "10.77.0.0/16" }],
    ["--pod-cidr with no Node seen yet", "10.77.0.0/16", undefined, { source: "flag", cidrs: "10.77.0.0/16" }],
    ["the Node's podCIDRs without the flag", "", node({ podCIDR: "10.90.1.0/24", podCIDRs: ["10.90.1.0/24"] }), { source: "node", cidrs: "10.90.1.0/24" }],
    ["dual stack: both ranges, in the Node's order", "", node({ podCIDR: "10.90.1.0/24", podCIDRs: ["10.90.1.0/24", "fd00:10:90:1::/64"] }), { source: "node", cidrs: "10.90.1.0/24,fd00:10:90:1::/64" }],
    ["only the old singular field", "", node({ podCIDR: "10.90.2.0/24" }), { source: "node", cidrs: "10.90.2.0/24" }],
    ["not assigned yet", "", node({}), { source: "unassigned" }],
    ["no Node seen yet", "", undefined, { source: "unassigned" }],
  ];
  for (const [name, flag, n, want] of cases) {
    test(name, () => expect(choosePodCIDR(flag, n)).toEqual(want));
  }

  test("two ranges of one family are refused, with what was found", () => {
    const choice = choosePodCIDR("", node({ podCIDRs: ["10.90.1.0/24", "10.91.1.0/24"] }));
    expect(choice.source).toBe("invalid");
    expect(choice.source === "invalid" && choice.reason).toContain(`["10.90.1.0/24","10.91.1.0/24"]`);
  });
});
