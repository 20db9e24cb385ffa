// How the pod network is made, from the settings, and when the controller follows the Node's pod CIDR.
import { describe, expect, test } from "bun:test";
import { followsNodePodCIDR, networkMode, type NetworkMode, type NetworkSettings } from "../../../src/network/mode.ts";

const base: NetworkSettings = { embedded: true, cniConfDir: "", joined: false, podCIDR: "" };

describe("the network mode", () => {
  const cases: [string, Partial<NetworkSettings>, NetworkMode, boolean][] = [
    ["an external runtime gets the Node's pod CIDR", { embedded: false, joined: true }, "runtime", true],
    ["an external runtime, even with --cni-conf-dir and --pod-cidr", { embedded: false, cniConfDir: "/etc/cni/net.d", podCIDR: "10.1.0.0/16" }, "runtime", true],
    ["the embedded containerd with --cni-conf-dir leaves the network to the host's CNI", { cniConfDir: "/etc/cni/net.d", joined: true }, "cluster-cni", false],
    ["joined without --pod-cidr: the bridge's range from the Node", { joined: true }, "node-range", true],
    ["joined with --pod-cidr: the flag's range", { joined: true, podCIDR: "10.77.0.0/16" }, "fixed-range", false],
    ["standalone: the bridge keeps its range", {}, "fixed-range", false],
  ];
  for (const [name, settings, mode, follows] of cases) {
    test(name, () => {
      expect(networkMode({ ...base, ...settings })).toBe(mode);
      expect(followsNodePodCIDR(mode)).toBe(follows);
    });
  }
});
