import { describe, expect, test } from "bun:test";
import { networkAddress, overVxlan, planPeers, vtepMac, type VxlanPeer } from "../../../src/network/vxlan.ts";

describe("the VXLAN fallback's pure parts", () => {
  test("every node derives a peer's VTEP MAC from its InternalIP: locally administered, unicast", () => {
    expect(vtepMac("10.89.7.2")).toBe("0e:ba:0a:59:07:02");
    expect(vtepMac("192.168.255.1")).toBe("0e:ba:c0:a8:ff:01");
  });
  test("the VTEP address is the pod CIDR's network address", () => {
    expect(networkAddress("10.90.1.0/24")).toBe("10.90.1.0");
    expect(networkAddress("10.90.1.77/24")).toBe("10.90.1.0");
    expect(networkAddress("10.91.128.0/17")).toBe("10.91.128.0");
    expect(networkAddress("10.91.200.5/17")).toBe("10.91.128.0");
  });
  test("a host-gw route becomes an onlink route through the device to the peer's VTEP", () => {
    expect(overVxlan({ dst: "10.90.3.0/24", via: "172.16.9.4", node: "d" })).toEqual({
      route: { dst: "10.90.3.0/24", via: "10.90.3.0", dev: "bunlet.vxlan", node: "d" },
      peer: { mac: "0e:ba:ac:10:09:04", gateway: "10.90.3.0", underlay: "172.16.9.4" },
    });
  });
  const p = (n: number, underlay = `172.16.9.${n}`): VxlanPeer => ({ mac: vtepMac(underlay), gateway: `10.90.${n}.0`, underlay });
  const cases: [string, VxlanPeer[], VxlanPeer[], { set: VxlanPeer[]; remove: VxlanPeer[] }][] = [
    ["a new peer is set", [p(3)], [], { set: [p(3)], remove: [] }],
    ["a known peer is left alone", [p(3)], [p(3)], { set: [], remove: [] }],
    ["a peer that is gone is removed", [], [p(3)], { set: [], remove: [p(3)] }],
    ["a half-written peer (no FDB entry) is written again, and nothing removed", [p(3)], [{ ...p(3), underlay: "" }], { set: [p(3)], remove: [] }],
    [
      "a peer whose InternalIP changed: the neighbour is overwritten, only the old FDB entry removed",
      [p(3, "172.16.9.99")],
      [p(3)],
      { set: [p(3, "172.16.9.99")], remove: [{ ...p(3), gateway: "" }] },
    ],
  ];
  for (const [name, desired, present, want] of cases) test(name, () => expect(planPeers(desired, present)).toEqual(want));
});
