/**
 * A container's resources in its API status (kubelet_pods.go convertContainerStatusResources):
 * `allocatedResources` are the requests the node allocated, `resources` what the running
 * container was given: the allocation, with CPU and memory read back from what the runtime
 * reports (CRI ContainerStatus.resources), else the actuated record, else the value reported
 * before for the same running container. Near the cgroup floors (2 shares, a 1 ms quota) the
 * allocated value is kept, as the runtime cannot tell 1m from 2m. A container that is not running
 * shows its allocation.
 */
import { Quantity, type Container, type ContainerStatus, type ResourceRequirements } from "../api/index.ts";
import type { RuntimeContainerStatus } from "../container/index.ts";

/** cm.MinShares, and cm.MinMilliCPULimit (MinQuotaPeriod × 1000 / QuotaPeriod). */
const MIN_SHARES = 2n;
const MIN_MILLI_CPU_LIMIT = 10n;

interface RuntimeResources {
  cpuLimit?: Quantity;
  cpuRequest?: Quantity;
  memoryLimit?: Quantity;
  memoryRequest?: Quantity;
}

/** toKubeContainerResources: what the runtime reports, in API units (absent = not reported). */
function fromRuntime(r: RuntimeContainerStatus["resources"]): RuntimeResources | undefined {
  if (r === undefined) return undefined;
  const out: RuntimeResources = {};
  if (r.cpuPeriod > 0n) {
    const milli = r.cpuQuota === -1n ? 0n : (r.cpuQuota * 1000n) / r.cpuPeriod;
    if (milli > 0n) out.cpuLimit = Quantity.ofMilli(milli, "DecimalSI");
  }
  if (r.cpuShares > 0n) {
    // SharesToMilliCPU: ceil(shares × 1000 / 1024), from MinShares on.
    const milli = r.cpuShares >= MIN_SHARES ? (r.cpuShares * 1000n + 1023n) / 1024n : 0n;
    if (milli > 0n) out.cpuRequest = Quantity.ofMilli(milli, "DecimalSI");
  }
  if (r.memoryLimitInBytes > 0n) out.memoryLimit = Quantity.of(r.memoryLimitInBytes, "BinarySI");
  return out.cpuLimit || out.cpuRequest || out.memoryLimit ? out : undefined;
}

const q = (list: Readonly<Record<string, string | number>> | undefined, name: string) =>
  list?.[name] === undefined ? Quantity.zero : Quantity.fromJSON(list[name]!);

/** The actuated record fills what the runtime does not report (the memory request always). */
function withActuated(reported: RuntimeResources | undefined, actuated: ResourceRequirements | undefined): RuntimeResources | undefined {
  if (actuated === undefined) return reported;
  if (reported === undefined) {
    return { cpuRequest: q(actuated.requests, "cpu"), cpuLimit: q(actuated.limits, "cpu"), memoryRequest: q(actuated.requests, "memory"), memoryLimit: q(actuated.limits, "memory") };
  }
  if (reported.memoryRequest === undefined && !q(actuated.requests, "memory").isZero()) return { ...reported, memoryRequest: q(actuated.requests, "memory") };
  return reported;
}

/** A resource list with each quantity in its canonical form (as the kubelet's JSON writes it). */
function canonical(list: Readonly<Record<string, string | number>>): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, Quantity.fromJSON(v).toString()]));
}

/** A copy of a ResourceRequirements as Go's JSON writes it: empty lists left out. */
function copyRequirements(r: ResourceRequirements | undefined): ResourceRequirements {
  const out: ResourceRequirements = {};
  if (r?.limits && Object.keys(r.limits).length > 0) out.limits = canonical(r.limits);
  if (r?.requests && Object.keys(r.requests).length > 0) out.requests = canonical(r.requests);
  return out;
}

export function containerStatusResources(
  allocated: Container,
  status: ContainerStatus,
  rc: RuntimeContainerStatus,
  old: ContainerStatus | undefined,
  actuated: ResourceRequirements | undefined,
): ResourceRequirements {
  if (rc.state !== "running") return copyRequirements(allocated.resources);
  const reported = withActuated(fromRuntime(rc.resources), actuated);
  const resources = copyRequirements(allocated.resources);
  const sameRunningContainer = old?.state?.running !== undefined && status.containerID === old.containerID;
  const preserve = (list: Record<string, string | number>, oldList: Record<string, string | number> | undefined, name: string) => {
    if (sameRunningContainer && oldList?.[name] !== undefined) list[name] = oldList[name]!;
  };
  const str = (v: Quantity) => v.toString();
  if (resources.limits) {
    const l = resources.limits;
    if (reported?.cpuLimit) {
      if (reported.cpuLimit.milliValue() > MIN_MILLI_CPU_LIMIT || q(l, "cpu").milliValue() > MIN_MILLI_CPU_LIMIT) l.cpu = str(reported.cpuLimit);
    } else preserve(l, old?.resources?.limits, "cpu");
    if (reported?.memoryLimit) l.memory = str(reported.memoryLimit);
    else preserve(l, old?.resources?.limits, "memory");
  }
  if (resources.requests) {
    const r = resources.requests;
    if (reported?.cpuRequest) {
      if (reported.cpuRequest.milliValue() > MIN_SHARES || q(r, "cpu").milliValue() > MIN_SHARES) r.cpu = str(reported.cpuRequest);
    } else preserve(r, old?.resources?.requests, "cpu");
    if (reported?.memoryRequest) r.memory = str(reported.memoryRequest);
    else preserve(r, old?.resources?.requests, "memory");
  }
  return resources;
}

/** status.allocatedResources: the allocated requests (absent when the container has none). */
export function allocatedResources(allocated: Container): Record<string, string> | undefined {
  const req = allocated.resources?.requests;
  if (req === undefined || Object.keys(req).length === 0) return undefined;
  return canonical(req);
}
