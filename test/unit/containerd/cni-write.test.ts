import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderCniConflist, renderedPodNetwork, writeCniConflist } from "../../../src/containerd/cni.ts";
import { containerdPaths } from "../../../src/containerd/paths.ts";
import { renderContainerdConfig } from "../../../src/containerd/config.ts";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the conflist the network area writes", () => {
  test("a range from the Node: no ipMasq (bunlet's chain masquerades), forceAddress (the bridge moves to the new range)", () => {
    const bridge = JSON.parse(renderCniConflist({ rootDir: "/r", podSubnet: "10.90.1.0/24", ipMasq: false, forceAddress: true })).plugins[0];
    expect(bridge.ipMasq).toBe(false);
    expect(bridge.forceAddress).toBe(true);
    const standalone = JSON.parse(renderCniConflist({ rootDir: "/r" })).plugins[0];
    expect(standalone.ipMasq).toBe(true);
    expect(standalone).not.toHaveProperty("forceAddress");
  });

  test("written once, read back, and not rewritten when unchanged (containerd reloads on every write)", () => {
    dir = mkdtempSync(join(tmpdir(), "bunlet-cni-"));
    expect(renderedPodNetwork(dir)).toBeUndefined();
    expect(writeCniConflist({ rootDir: dir, podSubnet: "10.90.1.0/24,fd00:90:1::/64", ipMasq: false })).toBe(true);
    expect(renderedPodNetwork(dir)).toEqual({ podSubnet: "10.90.1.0/24,fd00:90:1::/64", ipMasq: false });
    expect(writeCniConflist({ rootDir: dir, podSubnet: "10.90.1.0/24,fd00:90:1::/64", ipMasq: false })).toBe(false);
    expect(writeCniConflist({ rootDir: dir, podSubnet: "10.90.2.0/24", ipMasq: false })).toBe(true);
    expect(JSON.parse(readFileSync(containerdPaths(dir).cniConflistFile, "utf8")).plugins[0].ipam.ranges).toEqual([[{ subnet: "10.90.2.0/24" }]]);
  });

  test("--cni-conf-dir is the conf dir containerd reads, in both config versions", () => {
    for (const configVersion of [2, 3] as const) {
      const text = renderContainerdConfig({ rootDir: "/r", configVersion, cniConfDir: "/etc/cni/net.d", cniBinDir: "/opt/cni/bin" });
      expect(text).toContain(`conf_dir = "/etc/cni/net.d"`);
      expect(text).toContain("/opt/cni/bin");
    }
    expect(renderContainerdConfig({ rootDir: "/r" })).toContain(`conf_dir = "/r/containerd/cni/net.d"`);
  });
});
