import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { desiredRoutes, planRoutes, type NodeRoute, type PodRoute, type RoutePlan } from "../../../src/network/routes.ts";

function node(name: string, podCIDRs: string[], ...ips: string[]): Node {
  return {
    metadata: { name },
    spec: podCIDRs.length ? { podCIDR: podCIDRs[0], podCIDRs } : {},
    status: { addresses: [...ips.map((address) => ({ type: "InternalIP", address })), { type: "Hostname", address: name }] },
  };
}

describe("the routes a node wants: one per other Node's pod CIDR via its InternalIP", () => {
  const nodes = [
    node("a", ["10.90.0.0/24"], "192.168.5.1"),
    node("b", ["10.90.1.0/24"], "192.168.5.2"),
    node("c", ["10.90.2.0/24", "fd00:90:2::/64"], "192.168.5.3", "fd00::3"),
  ];
  test("no route to itself; dual stack routes each family via the address of that family", () => {
    expect(desiredRoutes(nodes, "a", new Set(["192.168.5.1"])).routes).toEqual([
      { dst: "10.90.1.0/24", via: "192.168.5.2", node: "b" },
      { dst: "10.90.2.0/24", via: "192.168.5.3", node: "c" },
      { dst: "fd00:90:2::/64", via: "fd00::3", node: "c" },
    ]);
  });
  test("a Node without an assigned range gets no route and no complaint", () => {
    expect(desiredRoutes([...nodes, node("d", [], "192.168.5.4")], "a", new Set())).toEqual(desiredRoutes(nodes, "a", new Set()));
  });
  test("skipped, with the reason: no InternalIP of the family, an address of this host, a range routed already", () => {
    const { routes, skipped } = desiredRoutes(
      [node("a", ["10.90.0.0/24"], "192.168.5.1"), node("b", ["10.90.1.0/24", "fd00:90:1::/64"], "192.168.5.2"), node("e", ["10.90.9.0/24"], "192.168.5.1"), node("f", ["10.90.1.0/24"], "192.168.5.6"), node("g", ["10.90.0.0/24"], "192.168.5.7")],
      "a",
      new Set(["192.168.5.1"]),
    );
    expect(routes).toEqual([{ dst: "10.90.1.0/24", via: "192.168.5.2", node: "b" }]);
    expect(skipped).toEqual([
      { node: "b", reason: "no IPv6 InternalIP for its pod CIDR fd00:90:1::/64" },
      { node: "e", reason: "its InternalIP 192.168.5.1 is an address of this host" },
      { node: "f", reason: "its pod CIDR 10.90.1.0/24 is already routed elsewhere" },
      { node: "g", reason: "its pod CIDR 10.90.0.0/24 is already routed elsewhere" },
    ]);
  });
});

describe("route reconciliation: desired routes from Nodes vs bunlet's routes in the kernel", () => {
  const r = (dst: string, via: string, node = "n"): NodeRoute => ({ dst, via, node });
  const p = (dst: string, via: string): PodRoute => ({ dst, via });
  const cases: [string, NodeRoute[], PodRoute[], RoutePlan][] = [
    ["nothing either side", [], [], { add: [], replace: [], delete: [] }],
    ["a new node's route is added", [r("10.90.1.0/24", "192.168.5.2")], [], { add: [r("10.90.1.0/24", "192.168.5.2")], replace: [], delete: [] }],
    ["a route already right is left alone (a restart changes nothing)", [r("10.90.1.0/24", "192.168.5.2")], [p("10.90.1.0/24", "192.168.5.2")], { add: [], replace: [], delete: [] }],
    ["a node whose address changed has its route replaced", [r("10.90.1.0/24", "192.168.5.9")], [p("10.90.1.0/24", "192.168.5.2")], { add: [], replace: [r("10.90.1.0/24", "192.168.5.9")], delete: [] }],
    ["a node that is gone loses its route", [], [p("10.90.1.0/24", "192.168.5.2")], { add: [], replace: [], delete: [p("10.90.1.0/24", "192.168.5.2")] }],
    [
      "all at once",
      [r("10.90.1.0/24", "192.168.5.2"), r("10.90.2.0/24", "192.168.5.8"), r("10.90.4.0/24", "192.168.5.4")],
      [p("10.90.1.0/24", "192.168.5.2"), p("10.90.2.0/24", "192.168.5.3"), p("10.90.3.0/24", "192.168.5.3")],
      { add: [r("10.90.4.0/24", "192.168.5.4")], replace: [r("10.90.2.0/24", "192.168.5.8")], delete: [p("10.90.3.0/24", "192.168.5.3")] },
    ],
  ];
  for (const [name, desired, present, want] of cases) {
    test(name, () => expect(planRoutes(desired, present)).toEqual(want));
  }
});
