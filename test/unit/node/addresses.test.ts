// The pods' hostIPs: the node's own, or loopback on a host with no usable address.
import { expect, test } from "bun:test";
import { podHostIPs } from "../../../src/node/addresses.ts";

test("pods see the node's IPs as their hostIPs, both families in order; loopback when the node has none", () => {
  expect(podHostIPs(["10.0.0.5"])).toEqual(["10.0.0.5"]);
  expect(podHostIPs(["10.0.0.5", "fd00::5"])).toEqual(["10.0.0.5", "fd00::5"]);
  expect(podHostIPs([])).toEqual(["127.0.0.1"]);
});
