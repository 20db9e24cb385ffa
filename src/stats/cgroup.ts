/**
 * A cgroup's CPU and memory from cgroupfs, as cadvisor reads them, for what the CRI does not
 * report: the pod sandbox's (pause) container and a pod cgroup. v2 (cpu.stat usage_usec,
 * memory.current, memory.stat anon and inactive_file) and v1 (cpuacct.usage,
 * memory.usage_in_bytes, memory.stat total_rss and total_inactive_file). The working set is
 * usage − inactive file, floored at 0, as cadvisor computes it. And cadvisor's container name
 * (its `id` label) of an OCI cgroupsPath: a path as is, a systemd "slice:prefix:name" expanded
 * to the slice's nesting as systemd lays it out.
 *
 * cgroupfs files are read synchronously: the kernel writes them out on read, no disk is touched,
 * and a scrape of /metrics/cadvisor at 100 pods reads about 3,000 of them, where an asynchronous
 * read costs several times the CPU of the read itself (docs/lean.md, "What a scrape costs").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface CgroupStats {
  usageCoreNanoSeconds: bigint;
  usageBytes: bigint;
  workingSetBytes: bigint;
  rssBytes: bigint;
  /** The memory limit; undefined when there is none (max, or v1's near-2^63 "unlimited"). */
  limitBytes?: bigint;
}

/** A cgroupfs file's text, trimmed; throws when the file is not there. */
export const readCgroupFile = (path: string) => readFileSync(path, "utf8").trim();

/** cadvisor's isMemoryUnlimited: v1 writes "no limit" as a page-rounded 2^63. */
const UNLIMITED = 1n << 62n;
function limitOf(path: string): bigint | undefined {
  try {
    const text = readCgroupFile(path);
    if (text === "max") return undefined;
    const n = BigInt(text);
    return n >= UNLIMITED ? undefined : n;
  } catch {
    return undefined;
  }
}

/**
 * One field of a flat-keyed cgroup file ("name value" lines: cpu.stat, memory.stat,
 * memory.events), or undefined when the file has no such line or its value is not a number. The
 * line is found, not the file parsed: memory.stat has about 40 lines, of which cAdvisor's series
 * want three.
 */
export function statField(text: string | undefined, key: string): bigint | undefined {
  if (text === undefined) return undefined;
  let start: number;
  if (text.startsWith(`${key} `)) start = key.length + 1;
  else {
    const at = text.indexOf(`\n${key} `);
    if (at < 0) return undefined;
    start = at + key.length + 2;
  }
  const end = text.indexOf("\n", start);
  const value = text.slice(start, end < 0 ? undefined : end).trim();
  return /^\d+$/.test(value) ? BigInt(value) : undefined;
}

const workingSet = (usage: bigint, inactiveFile: bigint) => (usage > inactiveFile ? usage - inactiveFile : 0n);

/** The stats of the cgroup `name` ("/k8s.io/abc") under `root` (/sys/fs/cgroup); undefined when it is not there. */
export function cgroupStats(name: string, root = "/sys/fs/cgroup"): CgroupStats | undefined {
  try {
    const v2 = join(root, name);
    const cpu = readCgroupFile(join(v2, "cpu.stat"));
    const usage = BigInt(readCgroupFile(join(v2, "memory.current")));
    const mem = readCgroupFile(join(v2, "memory.stat"));
    return {
      usageCoreNanoSeconds: (statField(cpu, "usage_usec") ?? 0n) * 1000n,
      usageBytes: usage,
      workingSetBytes: workingSet(usage, statField(mem, "inactive_file") ?? 0n),
      rssBytes: statField(mem, "anon") ?? 0n,
      limitBytes: limitOf(join(v2, "memory.max")),
    };
  } catch {
    // Not v2 (or gone): try the v1 hierarchies.
  }
  try {
    const cpu = BigInt(readCgroupFile(join(root, "cpuacct", name, "cpuacct.usage")));
    const usage = BigInt(readCgroupFile(join(root, "memory", name, "memory.usage_in_bytes")));
    const mem = readCgroupFile(join(root, "memory", name, "memory.stat"));
    return {
      usageCoreNanoSeconds: cpu,
      usageBytes: usage,
      workingSetBytes: workingSet(usage, statField(mem, "total_inactive_file") ?? 0n),
      rssBytes: statField(mem, "total_rss") ?? 0n,
      limitBytes: limitOf(join(root, "memory", name, "memory.limit_in_bytes")),
    };
  } catch {
    return undefined;
  }
}

/** "kubepods-besteffort-pod1.slice" → "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice". */
function expandSlice(slice: string): string {
  if (slice === "-.slice" || slice === "") return "";
  const parts = slice.replace(/\.slice$/, "").split("-");
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join("-")}.slice`).join("");
}

/** cadvisor's name of the cgroup an OCI runtime spec's cgroupsPath puts a container in. */
export function cgroupName(cgroupsPath: string): string {
  const systemd = /^([^:/]*\.slice):([^:]*):([^:]+)$/.exec(cgroupsPath);
  if (!systemd) return cgroupsPath.startsWith("/") ? cgroupsPath : `/${cgroupsPath}`;
  const [, slice, prefix, name] = systemd;
  const unit = name!.endsWith(".slice") ? name! : `${prefix ? `${prefix}-` : ""}${name}.scope`;
  return `${expandSlice(slice!)}/${unit}`;
}

/** The non-loopback interfaces of a network namespace, from /proc/<pid>/net/dev. */
export interface InterfaceStats {
  name: string;
  rxBytes: bigint;
  rxPackets: bigint;
  rxErrors: bigint;
  rxDropped: bigint;
  txBytes: bigint;
  txPackets: bigint;
  txErrors: bigint;
  txDropped: bigint;
}

/** cadvisor leaves out the loopback and the host side of other containers' links. */
const ignoredInterfaces = /^(lo|veth|docker|nerdctl)/;

export function parseNetDev(text: string): InterfaceStats[] {
  const out: InterfaceStats[] = [];
  for (const line of text.split("\n").slice(2)) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    if (!m || ignoredInterfaces.test(m[1]!)) continue;
    const f = m[2]!.trim().split(/\s+/).map((v) => BigInt(v));
    if (f.length < 16) continue;
    out.push({ name: m[1]!, rxBytes: f[0]!, rxPackets: f[1]!, rxErrors: f[2]!, rxDropped: f[3]!, txBytes: f[8]!, txPackets: f[9]!, txErrors: f[10]!, txDropped: f[11]! });
  }
  return out;
}
