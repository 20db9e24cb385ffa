/**
 * What the node is made of, read once at start (cadvisor's MachineInfo and the kubelet's
 * VersionInfo inputs): machine and boot IDs, system UUID, kernel, OS image, CPUs, memory,
 * huge pages and the capacity of the filesystem holding the root dir. The parsers are pure;
 * readMachineInfo does the reading, with the file reader injectable for tests.
 */
import { readFileSync, readdirSync, statfsSync } from "node:fs";
import { arch, cpus, release } from "node:os";

export interface MachineInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** GOOS / GOARCH spelling: linux, amd64 | arm64 | ... */
  operatingSystem: string;
  architecture: string;
  numCores: number;
  memoryCapacityBytes: number;
  /** Huge page pools: page size in bytes → pages reserved. */
  hugePages: { pageSizeBytes: number; pages: number }[];
  /** Capacity of the filesystem holding --root-dir (the kubelet's nodefs). */
  rootfsCapacityBytes: number;
}

/** /proc/meminfo MemTotal, in bytes (the kernel writes kB, meaning KiB). */
export function parseMemTotal(meminfo: string): number {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo);
  if (!m) throw new Error("/proc/meminfo has no MemTotal line");
  return Number(m[1]) * 1024;
}

/** os-release's PRETTY_NAME, as the kubelet reports osImage; "Linux" when there is none. */
export function parseOsImage(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!m) return "Linux";
  let v = m[1]!.trim();
  if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
  return v.replace(/\\(.)/g, "$1") || "Linux";
}

/** Node's process.arch → Go's GOARCH. */
export function goArch(nodeArch: string): string {
  const map: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64", loong64: "loong64" };
  return map[nodeArch] ?? nodeArch;
}

export interface MachineReader {
  readFile(path: string): string;
  listDir(path: string): string[];
  /** Capacity in bytes of the filesystem holding path. */
  fsCapacity(path: string): number;
}

const hostReader: MachineReader = {
  readFile: (p) => readFileSync(p, "utf8"),
  listDir: (p) => readdirSync(p),
  fsCapacity: (p) => {
    const s = statfsSync(p);
    return s.blocks * s.bsize;
  },
};

const firstLine = (read: () => string): string => {
  try {
    return read().split("\n")[0]!.trim();
  } catch {
    return "";
  }
};

export function readMachineInfo(rootDir: string, reader: MachineReader = hostReader): MachineInfo {
  const machineID = firstLine(() => reader.readFile("/etc/machine-id")) || firstLine(() => reader.readFile("/var/lib/dbus/machine-id"));
  const hugePages: MachineInfo["hugePages"] = [];
  let dirs: string[] = [];
  try {
    dirs = reader.listDir("/sys/kernel/mm/hugepages");
  } catch {
    // no huge page support
  }
  for (const d of dirs) {
    const m = /^hugepages-(\d+)kB$/.exec(d);
    if (!m) continue;
    const pages = Number(firstLine(() => reader.readFile(`/sys/kernel/mm/hugepages/${d}/nr_hugepages`)) || "0");
    hugePages.push({ pageSizeBytes: Number(m[1]) * 1024, pages });
  }
  hugePages.sort((a, b) => a.pageSizeBytes - b.pageSizeBytes);
  let osRelease = "";
  try {
    osRelease = reader.readFile("/etc/os-release");
  } catch {
    osRelease = firstLine(() => reader.readFile("/usr/lib/os-release")) ? reader.readFile("/usr/lib/os-release") : "";
  }
  return {
    machineID,
    // Unreadable without root on some hosts and absent in some VMs; the kubelet reports "" then.
    systemUUID: firstLine(() => reader.readFile("/sys/class/dmi/id/product_uuid")),
    bootID: firstLine(() => reader.readFile("/proc/sys/kernel/random/boot_id")),
    kernelVersion: release(),
    osImage: parseOsImage(osRelease),
    operatingSystem: "linux",
    architecture: goArch(arch()),
    numCores: cpus().length,
    memoryCapacityBytes: parseMemTotal(reader.readFile("/proc/meminfo")),
    hugePages,
    rootfsCapacityBytes: reader.fsCapacity(rootDir),
  };
}

/** The host's boot time from /proc/stat's btime (GetBootTime), undefined when it cannot be read. */
export function readBootTimeMs(readFile: (path: string) => string = hostReader.readFile): number | undefined {
  try {
    const btime = /^btime\s+(\d+)$/m.exec(readFile("/proc/stat"))?.[1];
    return btime === undefined ? undefined : Number(btime) * 1000;
  } catch {
    return undefined;
  }
}
