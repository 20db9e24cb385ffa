/**
 * emptyDir SetUp (pkg/volume/emptydir): on disk a 0777 directory; with medium Memory a tmpfs
 * whose size is the node's allocatable memory, lowered to the pod's memory limit and then to the
 * volume's sizeLimit (calculateEmptyDirMemorySize, SizeMemoryBackedVolumes). An existing mount is
 * kept, so a resync does not stack a second tmpfs. The memory-backed wrappers of secret,
 * projected and downwardAPI volumes are the same tmpfs.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { Quantity, resourceQuantity, type Pod } from "../api/index.ts";
import type { Mounter } from "./mounter.ts";

/** The pod's memory limit: the regular containers' sum, or an init container's if larger (PodLimits). */
function podMemoryLimit(pod: Pod): bigint {
  let sum = 0n;
  for (const c of pod.spec.containers) sum += resourceQuantity(c.resources?.limits, "memory").value();
  for (const c of pod.spec.initContainers ?? []) {
    const v = resourceQuantity(c.resources?.limits, "memory").value();
    if (v > sum) sum = v;
  }
  return sum;
}

/** calculateEmptyDirMemorySize, in bytes. */
export function emptyDirMemorySize(nodeAllocatable: bigint, sizeLimit: string | undefined, pod: Pod): bigint {
  let size = nodeAllocatable;
  const limit = podMemoryLimit(pod);
  if (limit > 0n) size = limit;
  const spec = sizeLimit === undefined ? 0n : Quantity.fromJSON(sizeLimit).value();
  if (spec > 0n && spec < size) size = spec;
  return size;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A disk-backed emptyDir: the directory, mode 0777 whatever the umask. */
export function setUpDiskDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if ((statSync(dir).mode & 0o777) !== 0o777) chmodSync(dir, 0o777);
}

/** A memory-backed directory: a tmpfs of the given size, unless one is mounted there already. */
export async function setUpTmpfs(dir: string, sizeBytes: bigint, mounter: Mounter): Promise<void> {
  if (!isDir(dir)) mkdirSync(dir, { recursive: true, mode: 0o750 });
  if (mounter.mountsUnder(dir).includes(dir)) return;
  await mounter.mountTmpfs(dir, sizeBytes);
}
