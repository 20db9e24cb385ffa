// Cgroup names of both drivers, as the kubelet's cgroup_manager_linux_test.go tables them.
import { describe, expect, test } from "bun:test";
import { CgroupNameError, driverName, expandSlice, newCgroupName, parseCgroupfs, parseSystemd, toCgroupfs, toSystemd } from "../../../src/cm/names.ts";

describe("CgroupName.ToSystemd and ToCgroupfs", () => {
  const cases: [string[], string, string][] = [
    [[], "/", "/"],
    [["kubepods"], "/kubepods.slice", "/kubepods"],
    [["kubepods", "burstable"], "/kubepods.slice/kubepods-burstable.slice", "/kubepods/burstable"],
    [["kubepods", "besteffort"], "/kubepods.slice/kubepods-besteffort.slice", "/kubepods/besteffort"],
    [
      ["kubepods", "burstable", "pod1234-abcd-5678-efgh"],
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_abcd_5678_efgh.slice",
      "/kubepods/burstable/pod1234-abcd-5678-efgh",
    ],
    [["kubepods", "pod0f1c-22"], "/kubepods.slice/kubepods-pod0f1c_22.slice", "/kubepods/pod0f1c-22"],
    [["bunlet-e2e-1", "kubepods"], "/bunlet_e2e_1.slice/bunlet_e2e_1-kubepods.slice", "/bunlet-e2e-1/kubepods"],
  ];
  for (const [name, systemd, cgroupfs] of cases) {
    test(`${JSON.stringify(name)} → ${systemd} | ${cgroupfs}`, () => {
      expect(toSystemd(name)).toBe(systemd);
      expect(toCgroupfs(name)).toBe(cgroupfs);
      expect(driverName("systemd", name)).toBe(systemd);
      expect(driverName("cgroupfs", name)).toBe(cgroupfs);
      // Both parse back to the name (the escaped "-" comes back).
      expect(parseCgroupfs(cgroupfs)).toEqual(name);
      if (name.length > 0) expect(parseSystemd(systemd)).toEqual(name);
    });
  }
});

describe("ExpandSlice", () => {
  test("nests each dash level, -.slice is the root", () => {
    expect(expandSlice("a-b-c.slice")).toBe("/a.slice/a-b.slice/a-b-c.slice");
    expect(expandSlice("-.slice")).toBe("/");
  });
  for (const bad of ["foo", "a--b.slice", "-a.slice", "a/b.slice", ".slic"]) {
    test(`${JSON.stringify(bad)} is not a slice`, () => expect(() => expandSlice(bad)).toThrow(CgroupNameError));
  }
});

test("a component with a slash cannot escape its parent", () => {
  expect(() => newCgroupName(["kubepods"], "../etc")).toThrow("invalid character in component");
  expect(newCgroupName(["kubepods"], "burstable")).toEqual(["kubepods", "burstable"]);
});
