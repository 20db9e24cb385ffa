import { describe, expect, test } from "bun:test";
import { ipFamily, parseCIDR, parsePodCIDRs } from "../../../src/lib/net.ts";

describe("IP addresses and networks, as Go's net package reads them", () => {
  test.each([
    ["10.0.0.1", 4],
    ["::1", 6],
    ["fd00::2", 6],
    ["::ffff:10.0.0.1", 6],
    ["fe80::1%eth0", undefined],
    ["[::1]", undefined],
    ["10.0.0", undefined],
    ["localhost", undefined],
    ["", undefined],
  ] as const)("%p is family %p", (address, family) => expect(ipFamily(address)).toBe(family));

  test.each([
    ["10.88.0.0/16", 4],
    ["10.88.0.1/32", 4],
    ["0.0.0.0/0", 4],
    ["fd00:10:88::/64", 6],
    ["::/0", 6],
    ["::/128", 6],
  ] as const)("%p is an IPv%d network", (text, family) => expect(parseCIDR(text)).toEqual({ text, family }));

  test.each(["10.88.0.0", "10.88.0.0/33", "::/129", "10.88.0.0/16/1", "10.88.0.0/-1", "10.88.0.0/ 16", "fe80::%eth0/64", "/16", ""])(
    "%p is not a network",
    (text) => expect(parseCIDR(text)).toBeUndefined(),
  );

  test("a pod CIDR is one network or one per family, comma-separated", () => {
    expect(parsePodCIDRs("10.88.0.0/16")?.map((c) => c.family)).toEqual([4]);
    expect(parsePodCIDRs("fd00::/64")?.map((c) => c.family)).toEqual([6]);
    expect(parsePodCIDRs("fd00::/64,10.88.0.0/16")?.map((c) => c.family)).toEqual([6, 4]);
    for (const bad of ["10.88.0.0/16,10.89.0.0/16", "10.88.0.0/16,fd00::/64,fd01::/64", "10.88.0.0/16,", ""]) {
      expect(parsePodCIDRs(bad)).toBeUndefined();
    }
  });
});
