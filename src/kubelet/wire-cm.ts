/**
 * The container manager area of the wiring (issue 25): reads where the cgroup controllers are,
 * works out the node's capacity and allocatable (kubeReserved, systemReserved, the hard eviction
 * thresholds), creates kubepods (limited to allocatable when enforceNodeAllocatable names "pods")
 * with its QoS tiers, enforces the reserved cgroups that are named, and keeps the burstable
 * tier's shares in step with the active pods every minute, as the kubelet's QoS manager does.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Pod } from "../api/index.ts";
import {
  allocatableReservation,
  CgroupError,
  cgroupConfigFor,
  cgroupSubsystems,
  createCgroupFs,
  createContainerManager,
  enforceReservedCgroups,
  kubepodsLimits,
  machineCapacity,
  nodeAllocatable,
  runQOSUpdates,
  QUOTA_PERIOD_US,
  systemdSliceCreator,
  systemContainers,
  validateNodeAllocatable,
  type CgroupFs,
  type ContainerManager,
  type ResourceAmounts,
} from "../cm/index.ts";
import { ConfigError, qosReservedMemoryPercent, type BunletConfig } from "../config/index.ts";
import { hardThresholdsForAllocatable, type Threshold } from "../eviction/index.ts";
import type { MachineInfo } from "../node/index.ts";
import type { CgroupSource } from "../stats/index.ts";
import type { WireBase } from "./wire-base.ts";

export interface ContainerManagerParts extends AsyncDisposable {
  cm: ContainerManager;
  fs: CgroupFs;
  /** What the Node's allocatable leaves out of capacity (cpu in millicores, the rest in bytes). */
  reservation: ResourceAmounts;
  /** The Node's allocatable, as admission counts it. */
  allocatable: ResourceAmounts;
  /** Starts the minute-by-minute QoS tier update over the active pods. */
  start(activePods: () => Pod[]): void;
  /** The cgroups /stats/summary reads: pod cgroups and the system containers; undefined without cgroupsPerQOS. */
  statsSource?: CgroupSource;
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

/** Where the host's cgroup controllers are mounted, and the huge page sizes it has. */
function hostCgroupSubsystems() {
  return cgroupSubsystems({
    mountinfo: readOr("/proc/self/mountinfo", ""),
    rootControllers: () => readOr("/sys/fs/cgroup/cgroup.controllers", ""),
    hugePageDirs: (() => {
      try {
        return readdirSync("/sys/kernel/mm/hugepages");
      } catch {
        return [];
      }
    })(),
  });
}

interface NodeAllocatable {
  reservation: ResourceAmounts;
  allocatable: ResourceAmounts;
  /** What kubepods is limited to: allocatable when enforceNodeAllocatable names "pods", else capacity (with the node's pids). */
  kubepodsLimits: ResourceAmounts;
}

/** Capacity less kubeReserved, systemReserved and the hard eviction thresholds; refused when more is reserved than there is. */
function nodeAllocatableOf(config: BunletConfig, machine: MachineInfo, thresholds: readonly Threshold[], enforce: ReadonlySet<string>): NodeAllocatable {
  const capacity = machineCapacity(machine, config.maxPods);
  const allocatableConfig = { kubeReserved: config.kubeReserved, systemReserved: config.systemReserved, hardEviction: hardThresholdsForAllocatable(thresholds) };
  const reservation = allocatableReservation(capacity, allocatableConfig);
  const invalid = validateNodeAllocatable(capacity, reservation, (name, n) => (name === "cpu" ? `${n}m` : String(n)));
  if (invalid) throw new ConfigError("--kube-reserved", `bunlet: ${invalid}`);
  const pidMax = readOr("/proc/sys/kernel/pid_max", "");
  const limits = kubepodsLimits(capacity, pidMax, allocatableConfig, { cgroupsPerQOS: config.cgroupsPerQOS, enforceNodeAllocatable: enforce });
  return { reservation, allocatable: nodeAllocatable(capacity, reservation), kubepodsLimits: limits };
}

export function wireContainerManager(config: BunletConfig, base: WireBase, inputs: { machine: MachineInfo; thresholds: readonly Threshold[] }): ContainerManagerParts {
  const { clock, log } = base;
  const subsystems = hostCgroupSubsystems();
  const fs = createCgroupFs(subsystems);
  const cm = createContainerManager(
    { fs, creator: config.cgroupDriver === "systemd" ? systemdSliceCreator() : undefined, log: log.with({ component: "cm" }) },
    {
      driver: config.cgroupDriver,
      cgroupsPerQOS: config.cgroupsPerQOS,
      cgroupRoot: config.cgroupRoot,
      enforceCPULimits: config.cpuCFSQuota,
      cpuPeriodUs: QUOTA_PERIOD_US,
      podPidsLimit: BigInt(config.podPidsLimit),
      memoryReservePercent: qosReservedMemoryPercent(config),
      hugePageSizes: subsystems.hugePageSizes,
    },
  );
  const enforce = new Set(config.enforceNodeAllocatable);
  const { reservation, allocatable, kubepodsLimits } = nodeAllocatableOf(config, inputs.machine, inputs.thresholds, enforce);
  const allocatableMemory = allocatable.get("memory") ?? 0n;
  try {
    cm.start(cgroupConfigFor(kubepodsLimits), [], allocatableMemory);
  } catch (err) {
    if (err instanceof CgroupError) throw new ConfigError("--cgroup-root", `bunlet: ${err.message}`);
    throw err;
  }
  enforceReserved(config, fs, enforce);
  log.info("Container manager started", {
    cgroupDriver: config.cgroupDriver,
    cgroupVersion: subsystems.version,
    cgroupsPerQOS: config.cgroupsPerQOS,
    kubepods: cm.kubepodsPath() ?? "",
    enforceNodeAllocatable: config.enforceNodeAllocatable,
  });
  const startedAt = clock.now();
  const kubepods = cm.kubepodsPath();
  const loops = new AbortController();
  const stack = new AsyncDisposableStack();
  return {
    cm,
    fs,
    reservation,
    allocatable,
    statsSource: kubepods === undefined ? undefined : { podCgroups: () => cm.podCgroups(), systemContainers: () => systemContainers(config, kubepods, startedAt, subsystems.version, readOr("/proc/self/cgroup", "")) },
    start(activePods) {
      if (!config.cgroupsPerQOS) return;
      const running = runQOSUpdates({ cm, activePods, allocatableMemory, clock, log }, loops.signal);
      stack.defer(() => running);
    },
    async [Symbol.asyncDispose]() {
      loops.abort();
      await stack.disposeAsync();
    },
  };
}

/** The reserved cgroups enforceNodeAllocatable names, limited (src/cm/reserved.ts); a failure refuses the start with one line. */
function enforceReserved(config: BunletConfig, fs: CgroupFs, enforce: ReadonlySet<string>): void {
  const failure = enforceReservedCgroups(fs, config.cgroupDriver, enforce, {
    system: { cgroup: config.systemReservedCgroup, reserved: config.systemReserved },
    kube: { cgroup: config.kubeReservedCgroup, reserved: config.kubeReserved },
  });
  if (failure) throw new ConfigError(failure.flag, `bunlet: ${failure.message}`);
}
