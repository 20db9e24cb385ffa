// What bunlet tells the apiserver it is: the node's User-Agent (client-go's shape) and the kubelet
// release it follows.
import { expect, test } from "bun:test";
import { KUBELET_COMPAT_VERSION, nodeUserAgent, VERSION } from "../../../src/config/version.ts";
import pkg from "../../../package.json";

test("the node's User-Agent names bunlet's version, linux and Go's arch, and the kubelet release it follows", () => {
  expect(VERSION).toBe(pkg.version);
  expect(KUBELET_COMPAT_VERSION).toMatch(/^v1\.\d+\.\d+$/);
  expect(nodeUserAgent("arm64")).toBe(`bunlet/v${pkg.version} (linux/arm64) kubelet-compatible/${KUBELET_COMPAT_VERSION}`);
});
