import { expect, test } from "bun:test";
import type { NetworkInterfaceInfo } from "node:os";
import { nodeHostIPs } from "../../../src/kubelet/node-ip.ts";

const addr = (address: string, family: "IPv4" | "IPv6", internal = false) =>
  ({ address, family, internal, netmask: "", mac: "", cidr: null }) as unknown as NetworkInterfaceInfo;

test.each([
  ["loopback only falls back to 127.0.0.1", { lo: [addr("127.0.0.1", "IPv4", true), addr("::1", "IPv6", true)] }, ["127.0.0.1"]],
  ["first external IPv4, then IPv6", { lo: [addr("127.0.0.1", "IPv4", true)], eth0: [addr("fe80::1", "IPv6"), addr("2001:db8::5", "IPv6"), addr("10.0.0.5", "IPv4")], eth1: [addr("10.1.0.5", "IPv4")] }, ["10.0.0.5", "2001:db8::5"]],
  ["IPv6-only host", { eth0: [addr("2001:db8::7", "IPv6")] }, ["2001:db8::7"]],
])("%s", (_name, interfaces, expected) => {
  expect(nodeHostIPs(interfaces)).toEqual(expected);
});
