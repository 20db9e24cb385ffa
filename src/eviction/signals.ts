/**
 * Signal observations from the Summary API, as the kubelet's makeSignalObservations: what is
 * available of each resource and its capacity. memory.available is the node's available memory
 * (capacity minus working set, cadvisor's root container), allocatableMemory.available that of
 * kubepods (the "pods" system container: its limit minus its working set); nodefs is the filesystem of the root
 * dir, imagefs the runtime's image filesystem, pid.available the PID limit minus processes.
 */
import type { Signal } from "./thresholds.ts";

export interface Observation {
  available: bigint;
  capacity: bigint;
}

export type Observations = Map<Signal, Observation>;

/** The parts of a Summary the observations read (src/stats's Summary fits). */
export interface NodeSummary {
  memory?: { availableBytes?: bigint; workingSetBytes?: bigint };
  fs?: FsSummary;
  runtime?: { imageFs?: FsSummary };
  rlimit?: { maxpid?: bigint; curproc?: bigint };
  /** The system containers; "pods" (kubepods) gives allocatableMemory.available. */
  systemContainers?: { name: string; memory?: { availableBytes?: bigint; workingSetBytes?: bigint } }[];
}
interface FsSummary {
  availableBytes?: bigint;
  capacityBytes?: bigint;
  inodesFree?: bigint;
  inodes?: bigint;
}

export function makeSignalObservations(node: NodeSummary): Observations {
  const out: Observations = new Map();
  const { memory, fs, runtime, rlimit } = node;
  if (memory?.availableBytes !== undefined && memory.workingSetBytes !== undefined) {
    out.set("memory.available", { available: memory.availableBytes, capacity: memory.availableBytes + memory.workingSetBytes });
  }
  // allocatableMemory.available: kubepods' limit less its pods' working set.
  const pods = node.systemContainers?.find((c) => c.name === "pods")?.memory;
  if (pods?.availableBytes !== undefined && pods.workingSetBytes !== undefined) {
    out.set("allocatableMemory.available", { available: pods.availableBytes, capacity: pods.availableBytes + pods.workingSetBytes });
  }
  const addFs = (prefix: "nodefs" | "imagefs", f: FsSummary | undefined) => {
    if (f?.availableBytes !== undefined && f.capacityBytes !== undefined) out.set(`${prefix}.available`, { available: f.availableBytes, capacity: f.capacityBytes });
    if (f?.inodesFree !== undefined && f.inodes !== undefined) out.set(`${prefix}.inodesFree`, { available: f.inodesFree, capacity: f.inodes });
  };
  addFs("nodefs", fs);
  // An image filesystem on the node's filesystem is observed as both, as cadvisor reports it.
  addFs("imagefs", runtime?.imageFs ?? fs);
  if (rlimit?.maxpid !== undefined && rlimit.curproc !== undefined) {
    out.set("pid.available", { available: rlimit.maxpid - rlimit.curproc, capacity: rlimit.maxpid });
  }
  return out;
}
