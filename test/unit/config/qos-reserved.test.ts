// qosReserved's memory percentage as the container manager acts on it: only with the QOSReserved
// gate, and only when memory is reserved.
import { expect, test } from "bun:test";
import { parseArgs, qosReservedMemoryPercent } from "../../../src/config/index.ts";

const config = (...flags: string[]) => {
  const parsed = parseArgs(flags);
  if (parsed.kind !== "run") throw new Error(`flags ${flags.join(" ")} did not parse to a run`);
  return parsed.config;
};

test("the reserved memory percentage applies only with the QOSReserved gate and a memory reservation", () => {
  expect(qosReservedMemoryPercent(config("--qos-reserved=memory=50%", "--feature-gates=QOSReserved=true"))).toBe(50n);
  expect(qosReservedMemoryPercent(config("--qos-reserved=memory=0%", "--feature-gates=QOSReserved=true"))).toBe(0n);
  expect(qosReservedMemoryPercent(config("--qos-reserved=memory=50%"))).toBeUndefined();
  expect(qosReservedMemoryPercent(config("--feature-gates=QOSReserved=true"))).toBeUndefined();
});
