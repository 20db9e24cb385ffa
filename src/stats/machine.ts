/**
 * /spec/: the parts of cadvisor's MachineInfo (info/v1/machine.go) that a node reads cheaply:
 * CPU counts and clock from /proc/cpuinfo (cpufreq's maximum when the kernel has it), memory and
 * swap capacity from /proc/meminfo, and the machine's identities (machine-id, DMI product UUID,
 * boot id). A field the host does not provide (no DMI in most VMs) is left out. Disks, network
 * devices, NUMA topology and cloud details are not gathered.
 */
import { readFile } from "node:fs/promises";
import { parseKeyValues, readProc } from "./host.ts";

export interface MachineInfo {
  timestamp: string;
  num_cores: number;
  num_physical_cores: number;
  num_sockets: number;
  cpu_frequency_khz?: number;
  memory_capacity?: bigint;
  swap_capacity?: bigint;
  machine_id?: string;
  system_uuid?: string;
  boot_id?: string;
}

export interface CpuInfo {
  numCores: number;
  numPhysicalCores: number;
  numSockets: number;
  /** The highest "cpu MHz" in kHz, as cadvisor's fallback reads it. */
  frequencyKhz?: number;
}

/** /proc/cpuinfo: logical CPUs, distinct (socket, core) pairs, distinct sockets, the fastest clock. */
export function parseCpuinfo(text: string): CpuInfo {
  const blocks = text.split(/\n\s*\n/).filter((b) => /^processor\s*:/m.test(b));
  const field = (block: string, name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, "m").exec(block)?.[1]?.trim();
  const sockets = new Set(blocks.map((b) => field(b, "physical id") ?? "0"));
  const cores = new Set(blocks.map((b) => `${field(b, "physical id") ?? "0"}/${field(b, "core id") ?? field(b, "processor")}`));
  const mhz = blocks.map((b) => Number(field(b, "cpu MHz"))).filter((n) => Number.isFinite(n) && n > 0);
  return {
    numCores: blocks.length,
    numPhysicalCores: cores.size,
    numSockets: sockets.size,
    ...(mhz.length > 0 && { frequencyKhz: Math.trunc(Math.max(...mhz) * 1000) }),
  };
}

/** The trimmed content of the first of `paths` that can be read and is not empty. */
async function firstLine(...paths: string[]): Promise<string | undefined> {
  for (const path of paths) {
    const text = await readFile(path, "utf8").catch((err: { code?: unknown }) => {
      if (err.code === "ENOENT" || err.code === "EACCES" || err.code === "EPERM") return "";
      throw err;
    });
    if (text.trim()) return text.trim();
  }
  return undefined;
}

export async function machineInfo(nowMs: number): Promise<MachineInfo> {
  const [cpuinfo, meminfo, maxFreq, machineId, systemUuid, bootId] = await Promise.all([
    readProc("cpuinfo"),
    readProc("meminfo"),
    firstLine("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"),
    firstLine("/etc/machine-id", "/var/lib/dbus/machine-id"),
    firstLine("/sys/class/dmi/id/product_uuid"),
    firstLine("/proc/sys/kernel/random/boot_id"),
  ]);
  const cpu = parseCpuinfo(cpuinfo);
  const mem = parseKeyValues(meminfo);
  const frequencyKhz = maxFreq !== undefined ? Number(maxFreq) : cpu.frequencyKhz;
  const info: MachineInfo = {
    timestamp: new Date(nowMs).toISOString(),
    num_cores: cpu.numCores,
    num_physical_cores: cpu.numPhysicalCores,
    num_sockets: cpu.numSockets,
    cpu_frequency_khz: frequencyKhz,
    memory_capacity: mem.get("MemTotal"),
    swap_capacity: mem.get("SwapTotal"),
    machine_id: machineId,
    system_uuid: systemUuid,
    boot_id: bootId,
  };
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as unknown as MachineInfo;
}
