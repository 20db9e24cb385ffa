import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../../src/config/index.ts";
import { embeddedNetwork } from "../../../src/kubelet/wire-network.ts";

const config = (...flags: string[]) => {
  const parsed = parseArgs(flags);
  if (parsed.kind !== "run") throw new Error(`flags ${flags.join(" ")} did not parse to a run`);
  return parsed.config;
};

describe("the embedded containerd's conflist at start-up", () => {
  const cases: [string, string[], "write" | "later"][] = [
    ["standalone: the default range now", [], "write"],
    ["standalone with --pod-cidr: the flag's range now", ["--pod-cidr=10.77.0.0/16"], "write"],
    ["joined without --pod-cidr: later, from the Node", ["--kubeconfig=/etc/k.conf"], "later"],
    ["joined with --pod-cidr: the flag wins, now", ["--kubeconfig=/etc/k.conf", "--pod-cidr=10.77.0.0/16"], "write"],
  ];
  for (const [name, flags, want] of cases) test(name, () => expect(embeddedNetwork(config(...flags)).conflist).toBe(want));

  test("--cni-conf-dir and --cni-bin-dir reach the embedded containerd", () => {
    expect(embeddedNetwork(config("--kubeconfig=/etc/k.conf", "--cni-conf-dir=/etc/cni/net.d", "--cni-bin-dir=/opt/cni/bin"))).toMatchObject({ cniConfDir: "/etc/cni/net.d", cniBinDir: "/opt/cni/bin" });
  });
});
