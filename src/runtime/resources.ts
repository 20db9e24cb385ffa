/**
 * What the kubelet derives from a container's resources for its cgroup: CPU shares and CFS quota
 * (pkg/kubelet/cm helpers_linux.go), the memory limit (kuberuntime calculateLinuxResources) and
 * the OOM score adjustment (pkg/kubelet/qos policy.go). Pure functions of the spec and the
 * node's memory capacity, in integers read through resource.Quantity as the kubelet reads them.
 */
import type { Container, Pod, ResourceRequirements } from "../api/index.ts";
import { computePodQOS, isNodeCriticalPod, isSidecarContainer, resourceQuantity } from "../api/index.ts";

const MIN_SHARES = 2n;
const MAX_SHARES = 262144n;
const SHARES_PER_CPU = 1024n;
const MILLI_CPU_TO_CPU = 1000n;
/** 100 ms, the kubelet's default cpuCFSQuotaPeriod, in microseconds. */
const QUOTA_PERIOD_US = 100_000n;
const MIN_QUOTA_PERIOD_US = 1000n;
const MAX_INT64 = (1n << 63n) - 1n;

/** cm.MilliCPUToShares. */
export function milliCpuToShares(milli: bigint): bigint {
  if (milli === 0n) return MIN_SHARES;
  const shares = (milli * SHARES_PER_CPU) / MILLI_CPU_TO_CPU;
  if (shares < MIN_SHARES) return MIN_SHARES;
  return shares > MAX_SHARES ? MAX_SHARES : shares;
}

/** cm.MilliCPUToQuota: 0 (no quota) without a limit, at least 1 ms otherwise. */
export function milliCpuToQuota(milli: bigint, periodUs = QUOTA_PERIOD_US): bigint {
  if (milli === 0n) return 0n;
  const quota = (milli * periodUs) / MILLI_CPU_TO_CPU;
  if (quota < MIN_QUOTA_PERIOD_US) return MIN_QUOTA_PERIOD_US;
  return quota > MAX_INT64 ? MAX_INT64 : quota;
}

export interface LinuxResources {
  cpuShares: bigint;
  cpuQuota: bigint;
  cpuPeriod: bigint;
  /** 0 = no limit. */
  memoryLimitInBytes: bigint;
}

/** The cgroup values of one container; a missing CPU request defaults to the limit. */
export function containerLinuxResources(resources: ResourceRequirements | undefined): LinuxResources {
  const hasRequest = resources?.requests?.cpu !== undefined;
  const cpuLimit = resourceQuantity(resources?.limits, "cpu");
  const cpuRequest = hasRequest ? resourceQuantity(resources?.requests, "cpu") : cpuLimit;
  return {
    cpuShares: milliCpuToShares(cpuRequest.milliValue()),
    cpuQuota: milliCpuToQuota(cpuLimit.milliValue()),
    cpuPeriod: QUOTA_PERIOD_US,
    memoryLimitInBytes: resourceQuantity(resources?.limits, "memory").value(),
  };
}

const GUARANTEED_OOM_SCORE_ADJ = -997n;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000n;

function memoryRequest(container: Container): bigint {
  return resourceQuantity(container.resources?.requests, "memory").value();
}

/** pkg/kubelet/qos GetContainerOOMScoreAdjust (without pod-level resources or DRA). */
export function containerOOMScoreAdjust(pod: Pod, container: Container, memoryCapacity: number): number {
  // Node-critical pods (static, mirror or system-critical, of class system-node-critical) are OOM-protected.
  if (isNodeCriticalPod(pod)) return Number(GUARANTEED_OOM_SCORE_ADJ);
  const qos = computePodQOS(pod);
  if (qos === "Guaranteed") return Number(GUARANTEED_OOM_SCORE_ADJ);
  if (qos === "BestEffort") return Number(BEST_EFFORT_OOM_SCORE_ADJ);
  const capacity = BigInt(memoryCapacity);
  const scoreFor = (request: bigint) => 1000n - (1000n * request) / capacity;
  let adj = scoreFor(memoryRequest(container));
  // A sidecar scores no higher than the regular container with the smallest request.
  if (isSidecarContainer(pod, container)) {
    const smallest = pod.spec.containers.map(memoryRequest).reduce((a, b) => (b < a ? b : a));
    const limit = scoreFor(smallest);
    if (adj > limit) adj = limit;
  }
  // Burstable sits strictly between Guaranteed (-997 .. 3) and BestEffort (1000).
  if (adj < 1000n + GUARANTEED_OOM_SCORE_ADJ) return Number(1000n + GUARANTEED_OOM_SCORE_ADJ);
  if (adj === BEST_EFFORT_OOM_SCORE_ADJ) return Number(adj - 1n);
  return Number(adj);
}
