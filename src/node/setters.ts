/**
 * Node status setters (pkg/kubelet/nodestatus/setters.go): pure functions that bring a Node's
 * status up to date from what the node knows now. setNodeStatus runs them in the kubelet's order
 * (addresses, machine info, version info, daemon endpoints, images, then the MemoryPressure,
 * DiskPressure, PIDPressure and Ready conditions), so a new Node lists its conditions as the
 * kubelet's do. Heartbeat times move on every run; transition times only when a status flips.
 */
import type { ContainerImage, Node, NodeCondition, NodeStatus } from "kubernetes-types/core/v1";
import type { MachineInfo } from "./machine.ts";
import { binarySI, decimalCount } from "./quantity.ts";

/** nodeStatusMaxImages default. */
const NODE_STATUS_MAX_IMAGES = 50;
/** MaxNamesPerImageInNodeStatus. */
const MAX_NAMES_PER_IMAGE = 5;
/** The kubelet's default hard eviction thresholds, which allocatable leaves out: memory.available<100Mi, nodefs.available<10%. */
const EVICTION_HARD_MEMORY_BYTES = 100 * 1024 * 1024;
const EVICTION_HARD_NODEFS_FRACTION = 0.1;

export interface RuntimeImage {
  repoTags: string[];
  repoDigests: string[];
  sizeBytes: number;
}

export interface NodeStatusInputs {
  now: number;
  /** The node's hostname (the Hostname address). */
  hostname: string;
  /** The InternalIPs: --node-ip, or the default route's address; [] = none found. */
  nodeIPs: string[];
  machine: MachineInfo;
  maxPods: number;
  /** daemonEndpoints.kubeletEndpoint.Port */
  kubeletPort: number;
  kubeletVersion: string;
  /** The features this node declares (KEP-5328); none or undefined leaves the field unset, as the kubelet's nil list. */
  declaredFeatures?: string[];
  /** CRI Version; undefined while the runtime has not answered. */
  runtime?: { name: string; version: string };
  /** CRI ListImages; undefined keeps the images last reported. */
  images?: RuntimeImage[];
  maxImages?: number;
  /**
   * Why the node is not ready, in the kubelet's words and order: runtime errors
   * ("container runtime is down", "PLEG is not healthy: ..."), network errors, ...
   */
  notReadyReasons: string[];
  pressure: { memory: boolean; disk: boolean; pid: boolean };
  /**
   * What allocatable leaves out of capacity (the container manager's GetNodeAllocatableReservation:
   * kubeReserved + systemReserved + hard eviction), cpu in millicores; absent = the default hard
   * eviction thresholds only.
   */
  allocatableReservation?: ReadonlyMap<string, bigint>;
}

/** metav1.Time: RFC 3339 in whole seconds. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** utilerrors.NewAggregate(errs).Error(): one message as is, several as "[a, b]". */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

function setNodeAddress(status: NodeStatus, inputs: NodeStatusInputs): void {
  const addresses = [];
  for (const ip of inputs.nodeIPs) addresses.push({ type: "InternalIP", address: ip });
  addresses.push({ type: "Hostname", address: inputs.hostname });
  status.addresses = addresses;
}

function setMachineInfo(status: NodeStatus, inputs: NodeStatusInputs): void {
  const { capacity, allocatable } = capacityAndAllocatable(inputs.machine, inputs.maxPods, inputs.allocatableReservation);
  status.capacity = capacity;
  status.allocatable = allocatable;
}

/** The default reservation: the kubelet's default hard eviction thresholds. */
function defaultReservation(m: MachineInfo): ReadonlyMap<string, bigint> {
  return new Map([
    ["memory", BigInt(EVICTION_HARD_MEMORY_BYTES)],
    ["ephemeral-storage", BigInt(Math.floor(m.rootfsCapacityBytes * EVICTION_HARD_NODEFS_FRACTION))],
  ]);
}

/** Millicores as a quantity: whole cores as a count ("2"), else "1900m". */
const milliCPU = (milli: bigint) => (milli % 1000n === 0n ? String(milli / 1000n) : `${milli}m`);

/**
 * The node's capacity and allocatable (MachineInfo setter): capacity less the reservation, never
 * below 0, and memory less the hugepages, as quantities.
 */
export function capacityAndAllocatable(
  m: MachineInfo,
  maxPods: number,
  reservation: ReadonlyMap<string, bigint> = defaultReservation(m),
): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const capacity: Record<string, string> = {
    cpu: decimalCount(m.numCores),
    "ephemeral-storage": binarySI(m.rootfsCapacityBytes),
    memory: binarySI(m.memoryCapacityBytes),
    pods: decimalCount(maxPods),
  };
  let hugePagesBytes = 0;
  for (const hp of m.hugePages) {
    const bytes = hp.pageSizeBytes * hp.pages;
    capacity[`hugepages-${binarySI(hp.pageSizeBytes)}`] = binarySI(bytes);
    hugePagesBytes += bytes;
  }
  const left = (total: number, name: string) => {
    const n = BigInt(total) - (reservation.get(name) ?? 0n);
    return n < 0n ? 0n : n;
  };
  const memory = left(m.memoryCapacityBytes, "memory") - BigInt(hugePagesBytes);
  const allocatable: Record<string, string> = {
    ...capacity,
    cpu: milliCPU(left(m.numCores * 1000, "cpu")),
    "ephemeral-storage": binarySI(Number(left(m.rootfsCapacityBytes, "ephemeral-storage"))),
    memory: binarySI(Number(memory < 0n ? 0n : memory)),
    pods: decimalCount(Number(left(maxPods, "pods"))),
  };
  return { capacity, allocatable };
}

function setVersionInfo(status: NodeStatus, inputs: NodeStatusInputs): void {
  const m = inputs.machine;
  const info = { ...(status.nodeInfo ?? {}) } as NonNullable<NodeStatus["nodeInfo"]>;
  info.machineID = m.machineID;
  info.systemUUID = m.systemUUID;
  info.bootID = m.bootID;
  info.kernelVersion = m.kernelVersion;
  info.osImage = m.osImage;
  info.operatingSystem = m.operatingSystem;
  info.architecture = m.architecture;
  info.kubeletVersion = inputs.kubeletVersion;
  // Kept as last reported while the runtime does not answer, as the kubelet does.
  if (inputs.runtime) info.containerRuntimeVersion = `${inputs.runtime.name}://${inputs.runtime.version}`;
  else info.containerRuntimeVersion ??= "";
  // DisableNodeKubeProxyVersion (GA): the kubelet no longer reports kube-proxy's version.
  info.kubeProxyVersion ??= "";
  status.nodeInfo = info;
}

function setDaemonEndpoints(status: NodeStatus, inputs: NodeStatusInputs): void {
  status.daemonEndpoints = { kubeletEndpoint: { Port: inputs.kubeletPort } };
}

function setImages(status: NodeStatus, inputs: NodeStatusInputs): void {
  if (!inputs.images) return;
  const max = inputs.maxImages ?? NODE_STATUS_MAX_IMAGES;
  const sorted = [...inputs.images].sort((a, b) => b.sizeBytes - a.sizeBytes);
  const limited = max < 0 ? sorted : sorted.slice(0, max);
  status.images = limited.map((img): ContainerImage => ({ names: [...img.repoDigests, ...img.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: img.sizeBytes }));
}

interface PressureTexts {
  type: string;
  trueReason: string;
  trueMessage: string;
  falseReason: string;
  falseMessage: string;
}

const memoryPressure: PressureTexts = {
  type: "MemoryPressure",
  trueReason: "KubeletHasInsufficientMemory",
  trueMessage: "kubelet has insufficient memory available",
  falseReason: "KubeletHasSufficientMemory",
  falseMessage: "kubelet has sufficient memory available",
};
const diskPressure: PressureTexts = {
  type: "DiskPressure",
  trueReason: "KubeletHasDiskPressure",
  trueMessage: "kubelet has disk pressure",
  falseReason: "KubeletHasNoDiskPressure",
  falseMessage: "kubelet has no disk pressure",
};
const pidPressure: PressureTexts = {
  type: "PIDPressure",
  trueReason: "KubeletHasInsufficientPID",
  trueMessage: "kubelet has insufficient PID available",
  falseReason: "KubeletHasSufficientPID",
  falseMessage: "kubelet has sufficient PID available",
};

/** MemoryPressureCondition / DiskPressureCondition / PIDPressureCondition. */
function setPressureCondition(status: NodeStatus, texts: PressureTexts, underPressure: boolean, now: number): void {
  const conditions = (status.conditions ??= []);
  let c = conditions.find((x) => x.type === texts.type);
  if (!c) {
    c = { type: texts.type, status: "Unknown" };
    conditions.push(c);
  }
  const time = metaTime(now);
  c.lastHeartbeatTime = time;
  const want = underPressure ? "True" : "False";
  if (c.status !== want) {
    c.status = want;
    c.reason = underPressure ? texts.trueReason : texts.falseReason;
    c.message = underPressure ? texts.trueMessage : texts.falseMessage;
    c.lastTransitionTime = time;
  }
}

/** ReadyCondition: KubeletReady, or KubeletNotReady with every reason the node has. */
function setReadyCondition(status: NodeStatus, inputs: NodeStatusInputs): void {
  const time = metaTime(inputs.now);
  const reasons = [...inputs.notReadyReasons];
  const missing = ["cpu", "memory", "pods", "ephemeral-storage"].filter((r) => status.capacity?.[r] === undefined);
  if (missing.length > 0) reasons.push(`missing node capacity for resources: ${missing.join(", ")}`);
  const next: NodeCondition =
    reasons.length === 0
      ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: time }
      : { type: "Ready", status: "False", reason: "KubeletNotReady", message: aggregateMessage(reasons), lastHeartbeatTime: time };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === "Ready");
  if (i >= 0) {
    next.lastTransitionTime = conditions[i]!.status === next.status ? conditions[i]!.lastTransitionTime : time;
    conditions[i] = next;
  } else {
    next.lastTransitionTime = time;
    conditions.push(next);
  }
}

/** Runs every setter on node.status (in place) and returns the node. */
export function setNodeStatus(node: Node, inputs: NodeStatusInputs): Node {
  // kubernetes-types marks status read-only (the apiserver owns it in most objects); the node's is ours.
  const status = ((node as { status?: NodeStatus }).status ??= {});
  setNodeAddress(status, inputs);
  setMachineInfo(status, inputs);
  setVersionInfo(status, inputs);
  setDaemonEndpoints(status, inputs);
  setImages(status, inputs);
  if (inputs.declaredFeatures && inputs.declaredFeatures.length > 0) (status as NodeStatus & { declaredFeatures?: string[] }).declaredFeatures = [...inputs.declaredFeatures];
  setPressureCondition(status, memoryPressure, inputs.pressure.memory, inputs.now);
  setPressureCondition(status, diskPressure, inputs.pressure.disk, inputs.now);
  setPressureCondition(status, pidPressure, inputs.pressure.pid, inputs.now);
  setReadyCondition(status, inputs);
  return node;
}

/** JSON with sorted keys, so maps compare by content. */
function canonical(x: unknown): string {
  return JSON.stringify(x, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** nodeStatusHasChanged: anything but the conditions' heartbeat times differs. */
export function nodeStatusHasChanged(original: NodeStatus | undefined, next: NodeStatus | undefined): boolean {
  const strip = (s: NodeStatus | undefined) =>
    s && { ...s, conditions: (s.conditions ?? []).map(({ lastHeartbeatTime: _h, ...rest }) => rest) };
  return canonical(strip(original)) !== canonical(strip(next));
}
