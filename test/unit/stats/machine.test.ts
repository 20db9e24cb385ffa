import { expect, test } from "bun:test";
import { parseCpuinfo } from "../../../src/stats/machine.ts";

const block = (processor: number, socket: number, core: number, mhz: string) =>
  `processor\t: ${processor}\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: ${mhz}\nphysical id\t: ${socket}\ncore id\t\t: ${core}\n`;

test("/proc/cpuinfo: logical CPUs, physical cores, sockets and the fastest clock in kHz", () => {
  const text = [block(0, 0, 0, "2096.020"), block(1, 0, 0, "2100.5"), block(2, 1, 0, "1800.000"), block(3, 1, 1, "1800.000")].join("\n");
  expect(parseCpuinfo(text)).toEqual({ numCores: 4, numPhysicalCores: 3, numSockets: 2, frequencyKhz: 2100500 });
});

test("/proc/cpuinfo without topology or clock (arm64): each processor is a core on one socket", () => {
  expect(parseCpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n")).toEqual({ numCores: 2, numPhysicalCores: 2, numSockets: 1 });
});
