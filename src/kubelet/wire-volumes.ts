/**
 * The volume manager that sets up pods' volumes, from the API objects of wire-api-objects.ts
 * (none when standalone), with the volume counts in /metrics.
 */
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { BunletConfig } from "../config/index.ts";
import { podReference, type EventRecorder } from "../events/index.ts";
import { registerVolumeCounts } from "../metrics/index.ts";
import { createVolumeManager, type VolumeManager } from "../volumes/index.ts";
import type { ApiObjectParts } from "./wire-api-objects.ts";
import type { WireBase } from "./wire-base.ts";

export function wireVolumes(config: BunletConfig, base: WireBase, objects: ApiObjectParts, hostIPs: string[], recorder: EventRecorder): VolumeManager {
  const volumes = createVolumeManager({
    podsDir: join(config.rootDir, "pods"),
    objects: objects.volumes,
    node: { nodeName: config.nodeName, hostIPs, cpuCapacityMilli: cpus().length * 1000, memoryCapacity: totalmem() },
    recordEvent: (pod, type, reason, message) => recorder.event(podReference(pod), type, reason, message),
    clock: base.clock,
    log: base.log,
    metrics: base.metrics,
  });
  registerVolumeCounts(base.metrics.registry, () => volumes.totalVolumes());
  return volumes;
}
