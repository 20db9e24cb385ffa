/**
 * Gathers what the status setters need at each round: the machine (read once), the runtime's
 * version and images over CRI (each call short; a failure keeps what was last seen, the kubelet
 * does the same), and why the node is not ready, from whoever knows (runtime state, PLEG).
 */
import type { Logger } from "../lib/index.ts";
import type { MachineInfo } from "./machine.ts";
import type { NodeStatusInputs, RuntimeImage } from "./setters.ts";

/** The runtime as node status sees it; the wiring adapts the CRI client. */
export interface NodeRuntime {
  version(): Promise<{ runtimeName: string; runtimeVersion: string }>;
  listImages(): Promise<RuntimeImage[]>;
}

export interface StatusInputsDeps {
  machine: MachineInfo;
  runtime: NodeRuntime;
  /** Why the node is not ready now, in the kubelet's words and order (empty = ready). */
  notReadyReasons(): string[];
  /** The eviction manager's pressure conditions; none when absent. */
  pressure?(): { memory: boolean; disk: boolean; pid: boolean };
  now(): number;
  log: Logger;
}

export interface StatusInputsOptions {
  hostname: string;
  nodeIPs: string[];
  maxPods: number;
  kubeletPort: number;
  kubeletVersion: string;
  maxImages?: number;
  /** What allocatable leaves out of capacity (the container manager's reservation). */
  allocatableReservation?: ReadonlyMap<string, bigint>;
  /** status.declaredFeatures, fixed at start (the kubelet discovers them once). */
  declaredFeatures?: string[];
}

export function createStatusInputs(deps: StatusInputsDeps, opts: StatusInputsOptions): () => Promise<NodeStatusInputs> {
  let runtime: NodeStatusInputs["runtime"];
  let images: RuntimeImage[] | undefined;
  let versionFailing = false;
  return async () => {
    try {
      const v = await deps.runtime.version();
      runtime = { name: v.runtimeName, version: v.runtimeVersion };
      versionFailing = false;
    } catch (err) {
      if (!versionFailing) deps.log.warn("Cannot read the container runtime's version for node status; keeping the last one", { err });
      versionFailing = true;
    }
    try {
      images = await deps.runtime.listImages();
    } catch (err) {
      deps.log.debug("Cannot list images for node status; keeping the last list", { err }, 2);
    }
    return {
      now: deps.now(),
      hostname: opts.hostname,
      nodeIPs: opts.nodeIPs,
      machine: deps.machine,
      maxPods: opts.maxPods,
      kubeletPort: opts.kubeletPort,
      kubeletVersion: opts.kubeletVersion,
      declaredFeatures: opts.declaredFeatures,
      runtime,
      images,
      maxImages: opts.maxImages,
      allocatableReservation: opts.allocatableReservation,
      notReadyReasons: deps.notReadyReasons(),
      pressure: deps.pressure?.() ?? { memory: false, disk: false, pid: false },
    };
  };
}
