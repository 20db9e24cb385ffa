import { expect, test } from "bun:test";
import { readBootTimeMs } from "../../../src/node/machine.ts";

test("the boot time is /proc/stat's btime in ms; undefined when the line is missing or the file unreadable", () => {
  expect(readBootTimeMs(() => "cpu  1 2 3\nbtime 1767225600\nprocesses 42\n")).toBe(1767225600_000);
  expect(readBootTimeMs(() => "cpu  1 2 3\n")).toBeUndefined();
  expect(
    readBootTimeMs(() => {
      throw new Error("EACCES");
    }),
  ).toBeUndefined();
});
