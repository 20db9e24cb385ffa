import { describe, expect, test } from "bun:test";
import { hashContainer } from "../../../src/container/index.ts";

describe("hashContainer", () => {
  test("matches the kubelet's value for upstream's fixture container (0x8e45cbd0)", () => {
    expect(hashContainer({ name: "test_container", image: "foo/image:v1" })).toBe("8e45cbd0");
  });

  test.each([
    ["name changes the hash", { name: "b", image: "busybox" }],
    ["image changes the hash", { name: "a", image: "busybox:2" }],
  ])("%s", (_label, other) => {
    expect(hashContainer(other)).not.toBe(hashContainer({ name: "a", image: "busybox" }));
  });

  test("other fields do not change the hash, so upgrades never restart containers", () => {
    const base = { name: "a", image: "busybox" };
    expect(hashContainer({ ...base, command: ["sleep", "1"], env: [{ name: "X", value: "1" }] } as typeof base)).toBe(
      hashContainer(base),
    );
  });
});
