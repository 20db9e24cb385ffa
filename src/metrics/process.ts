/**
 * The metrics every Kubernetes component exposes besides its own: the process collector of
 * client_golang (process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_virtual_memory_max_bytes, process_start_time_seconds,
 * process_open_fds, process_max_fds, process_network_receive/transmit_bytes_total),
 * read from /proc at scrape time as it reads them, and kubernetes_build_info
 * (component-base/metrics/prometheus/version) with bunlet's version.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Counter, Gauge, type Registry } from "./prom.ts";

/** USER_HZ: the kernel reports CPU times in ticks of 1/100 s on Linux, as procfs assumes. */
const userHZ = 100;

/** /proc/self/stat fields by their 1-based number in proc(5). */
function selfStat(): (field: number) => number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The command name (field 2) may hold spaces; fields 3 and up follow its closing parenthesis.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (field) => Number(rest[field - 3]);
}

function bootTimeSeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith("btime "));
  return Number(line?.slice("btime ".length));
}

/** A soft limit of /proc/self/limits; "unlimited" is procfs's MaxUint64. */
function softLimit(name: string): number {
  const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith(name));
  const soft = line?.slice(name.length).trim().split(/\s+/)[0];
  return soft === "unlimited" ? 2 ** 64 : Number(soft);
}

/** IpExt InOctets and OutOctets of /proc/self/net/netstat: the network namespace's bytes, as procfs's Netstat reads them. */
export function ipExtOctets(netstat: string): { in: number; out: number } {
  const lines = netstat.split("\n").filter((l) => l.startsWith("IpExt:"));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  const value = (name: string) => Number(values[names.indexOf(name)] ?? 0) || 0;
  return { in: value("InOctets"), out: value("OutOctets") };
}

export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  new Counter({
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds.",
    registers,
    collect() {
      const { user, system } = process.cpuUsage();
      this.reset();
      this.inc((user + system) / 1e6);
    },
  });
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: "process_virtual_memory_bytes",
    help: "Virtual memory size in bytes.",
    registers,
    collect() {
      this.set(selfStat()(23));
    },
  });
  registerProcessStartTime(registry, "Start time of the process since unix epoch in seconds.");
  new Gauge({
    name: "process_open_fds",
    help: "Number of open file descriptors.",
    registers,
    collect() {
      this.set(readdirSync("/proc/self/fd").length);
    },
  });
  new Gauge({
    name: "process_max_fds",
    help: "Maximum number of open file descriptors.",
    registers,
    collect() {
      this.set(softLimit("Max open files"));
    },
  });
  new Gauge({
    name: "process_virtual_memory_max_bytes",
    help: "Maximum amount of virtual memory available in bytes.",
    registers,
    collect() {
      this.set(softLimit("Max address space"));
    },
  });
  for (const [name, help, key] of [
    ["process_network_receive_bytes_total", "Number of bytes received by the process over the network.", "in"],
    ["process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", "out"],
  ] as const) {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(ipExtOctets(readFileSync("/proc/self/net/netstat", "utf8"))[key]);
      },
    });
  }
}

/** Go's GOARCH for Node's process.arch. */
const goArch: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" };

/**
 * kubernetes_build_info as component-base sets it; an unstamped build has no commit, tree state
 * or date, as an unstamped Kubernetes build has none. go_version carries the runtime, Bun.
 */
export function registerBuildInfo(registry: Registry, version: string): void {
  const [major = "", minor = ""] = version.split(".");
  new Gauge({
    name: "kubernetes_build_info",
    help: "[BETA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    labelNames: ["major", "minor", "git_version", "git_commit", "git_tree_state", "build_date", "go_version", "compiler", "platform"],
    registers: [registry],
  }).set(
    {
      major,
      minor,
      git_version: `v${version}`,
      git_commit: "",
      git_tree_state: "",
      build_date: "1970-01-01T00:00:00Z",
      go_version: `bun${Bun.version}`,
      compiler: "bun",
      platform: `${process.platform}/${goArch[process.arch] ?? process.arch}`,
    },
    1,
  );
}

/**
 * process_start_time_seconds alone, as component-base's RegisterProcessStartTime puts it on the
 * kubelet's /metrics/probes (with its stability annotation there).
 */
export function registerProcessStartTime(registry: Registry, help = "[ALPHA] Start time of the process since unix epoch in seconds."): void {
  new Gauge({
    name: "process_start_time_seconds",
    help,
    registers: [registry],
    collect() {
      this.set(bootTimeSeconds() + selfStat()(22) / userHZ);
    },
  });
}
