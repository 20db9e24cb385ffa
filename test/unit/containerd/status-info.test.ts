import { expect, test } from "bun:test";
import { sandboxImageFromStatusInfo } from "../../../src/containerd/status-info.ts";

test.each([
  ["containerd 1.7's config JSON", { config: JSON.stringify({ sandboxImage: "registry.k8s.io/pause:3.10", enableSelinux: false }) }, "registry.k8s.io/pause:3.10"],
  ["no config in the info", {}, undefined],
  ["a config without a sandbox image", { config: "{}" }, undefined],
  ["an empty sandbox image", { config: JSON.stringify({ sandboxImage: "" }) }, undefined],
  ["a sandbox image that is not a string", { config: JSON.stringify({ sandboxImage: 3 }) }, undefined],
  ["config that is not JSON", { config: "sandboxImage = pause" }, undefined],
])("the sandbox image from CRI Status info: %s", (_name, info: Record<string, string>, want) => {
  expect(sandboxImageFromStatusInfo(info)).toBe(want);
});
