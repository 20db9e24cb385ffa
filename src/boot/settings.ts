/**
 * The settings that can only be judged whole, checked before anything is touched (main.ts, before
 * the root-dir lock) and again by the composition root, which uses what they give: a bad one
 * stops bunlet with exit status 2 and one line naming it, as a bad flag does and as the kubelet
 * refuses them at start.
 */
import { systemdBooted, SYSTEMD_NOT_RUNNING } from "../cm/index.ts";
import { ConfigError, type BunletConfig } from "../config/index.ts";
import { parseThresholdConfig, ThresholdError, type Threshold } from "../eviction/index.ts";

/** Refused before anything is touched, one line: the systemd driver where systemd is not the init system. */
export function checkCgroupDriver(config: BunletConfig, booted = systemdBooted()): void {
  if (config.cgroupDriver === "systemd" && config.cgroupsPerQOS && !booted) {
    throw new ConfigError("--cgroup-driver", `bunlet: ${SYSTEMD_NOT_RUNNING}`);
  }
}

/** evictionHard/evictionSoft as the kubelet parses them at start, before anything else starts. */
export function evictionThresholds(config: BunletConfig): Threshold[] {
  try {
    return parseThresholdConfig(config);
  } catch (err) {
    if (err instanceof ThresholdError) throw new ConfigError("evictionHard", `bunlet: eviction thresholds: ${err.message}`);
    throw err;
  }
}
