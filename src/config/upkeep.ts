/**
 * The settings that keep an unattended node alive (issue 19): container log rotation, the
 * embedded containerd's own log, image GC, eviction and graceful node shutdown. Kubelet fields
 * keep the kubelet's names, defaults and flag spellings; bunlet's own are marked so. Sizes are
 * resource quantities ("10Mi") read exactly as the kubelet reads them, held as byte counts.
 * Eviction thresholds stay as given ("memory.available" → "100Mi"): the eviction manager parses
 * them, as the kubelet's ParseThresholdConfig does at start.
 */
import { Quantity, QuantityError } from "../api/index.ts";
import { formatGoDuration } from "../lib/index.ts";
import type { FlagDef } from "./flags.ts";
import type { ConfigLayer } from "./types.ts";
import * as v from "./values.ts";

export interface UpkeepConfig {
  /** containerLogMaxSize: a container's log is rotated once it reaches this many bytes. */
  containerLogMaxSize: number;
  /** containerLogMaxFiles: files per container log, the current one included (at least 2). */
  containerLogMaxFiles: number;
  /** containerLogMaxWorkers: containers rotated at once. */
  containerLogMaxWorkers: number;
  /** containerLogMonitorInterval: the longest time between two checks of a container's log size. */
  containerLogMonitorIntervalMs: number;
  /** podLogsMaxTotalSize (bunlet): a cap on all files under podLogsDir; 0 = none. */
  podLogsMaxTotalSize: number;
  /** containerdLogMaxSize / containerdLogMaxFiles / containerdLogLevel (bunlet): the embedded containerd's log. */
  containerdLogMaxSize: number;
  containerdLogMaxFiles: number;
  containerdLogLevel: string;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  imageMinimumGCAgeMs: number;
  /** imageMaximumGCAge: an image unused this long is removed whatever the disk usage; 0 = never. */
  imageMaximumGCAgeMs: number;
  /** imageGCPeriod (bunlet): how often image GC runs; the kubelet's fixed ImageGCPeriod is 5m. */
  imageGCPeriodMs: number;
  /** evictionHard / evictionSoft: signal → threshold ("100Mi", "10%"); undefined = the kubelet's defaults (hard) or none (soft). */
  evictionHard?: Record<string, string>;
  evictionSoft: Record<string, string>;
  /** evictionSoftGracePeriod: signal → grace period, in ms. */
  evictionSoftGracePeriod: Record<string, number>;
  evictionMinimumReclaim: Record<string, string>;
  evictionPressureTransitionPeriodMs: number;
  /** evictionMaxPodGracePeriod: seconds granted to a pod evicted for a soft threshold. */
  evictionMaxPodGracePeriod: number;
  /** mergeDefaultEvictionSettings: evictionHard given in part keeps the other defaults. */
  mergeDefaultEvictionSettings: boolean;
  /** evictStaticPods (bunlet): static pods may be evicted too; the kubelet counts them critical and never does. */
  evictStaticPods: boolean;
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  /**
   * offlineStart (bunlet): keep a checkpoint of this node's API pods and the objects they
   * reference, and start them from it while the apiserver is unreachable. false = the kubelet's
   * behaviour (API pods wait for the apiserver) and no checkpoint on disk.
   */
  offlineStart: boolean;
}

const MI = 1024 * 1024;

export const upkeepDefaults: Omit<UpkeepConfig, "evictionHard"> = {
  containerLogMaxSize: 10 * MI,
  containerLogMaxFiles: 5,
  containerLogMaxWorkers: 1,
  containerLogMonitorIntervalMs: 10_000,
  podLogsMaxTotalSize: 0,
  containerdLogMaxSize: 10 * MI,
  containerdLogMaxFiles: 3,
  containerdLogLevel: "info",
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  imageMinimumGCAgeMs: 2 * 60_000,
  imageMaximumGCAgeMs: 0,
  imageGCPeriodMs: 5 * 60_000,
  evictionSoft: {},
  evictionSoftGracePeriod: {},
  evictionMinimumReclaim: {},
  evictionPressureTransitionPeriodMs: 5 * 60_000,
  evictionMaxPodGracePeriod: 0,
  mergeDefaultEvictionSettings: false,
  evictStaticPods: false,
  shutdownGracePeriodMs: 0,
  shutdownGracePeriodCriticalPodsMs: 0,
  offlineStart: true,
};

/** A byte size as a resource quantity ("10Mi", "50M", "1048576"), or a plain number in the file. */
function byteSize(x: string | number): number {
  let q: Quantity;
  try {
    q = Quantity.fromJSON(x);
  } catch (err) {
    if (err instanceof QuantityError) throw new v.ValueError(`expected a quantity such as 10Mi, found ${JSON.stringify(x)}`);
    throw err;
  }
  const n = q.value();
  if (n < 0n) throw new v.ValueError(`must not be negative, found ${JSON.stringify(x)}`);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new v.ValueError(`too large, found ${JSON.stringify(x)}`);
  return Number(n);
}

function atLeast(min: number, n: number): number {
  if (!Number.isInteger(n) || n < min || n > 2 ** 31 - 1) throw new v.ValueError(`must be an integer of at least ${min}, found ${n}`);
  return n;
}

function percent(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 100) throw new v.ValueError(`must be between 0 and 100, inclusive, found ${n}`);
  return n;
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "panic"];
function logLevel(s: string): string {
  if (!LOG_LEVELS.includes(s)) throw new v.ValueError(`expected one of ${LOG_LEVELS.join(", ")}, found ${JSON.stringify(s)}`);
  return s;
}

/** signal → Go duration text, as ms; a bad duration names its signal. */
function durationMap(m: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [signal, text] of Object.entries(m)) {
    try {
      out[signal] = v.durationMs(text);
    } catch (err) {
      if (err instanceof v.ValueError) throw new v.ValueError(`${signal}: ${err.message}`);
      throw err;
    }
  }
  return out;
}

type Obj = Record<string, unknown>;
const describe = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "a list" : `${typeof x} ${JSON.stringify(x)}`);
function fileInt(x: unknown): number {
  if (typeof x !== "number" || !Number.isInteger(x)) throw new v.ValueError(`expected an integer, found ${describe(x)}`);
  return x;
}
function fileStr(x: unknown): string {
  if (typeof x !== "string") throw new v.ValueError(`expected a string, found ${describe(x)}`);
  return x;
}
function fileSize(x: unknown): number {
  if (typeof x !== "string" && typeof x !== "number") throw new v.ValueError(`expected a quantity such as "10Mi", found ${describe(x)}`);
  return byteSize(x);
}
function fileStringMap(x: unknown): Record<string, string> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) throw new v.ValueError(`expected a map of signal to value, found ${describe(x)}`);
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(x as Obj)) out[k] = fileStr(value);
  return out;
}
/** metav1.Duration in the file: a zero duration leaves the default (the kubelet's defaulting). */
function fileDuration(x: unknown, set: (ms: number) => void): void {
  const ms = v.durationMs(fileStr(x));
  if (ms > 0) set(ms);
}

/** KubeletConfiguration fields (and bunlet's own) read from the --config file. */
export const upkeepReaders: Record<string, (x: unknown, layer: ConfigLayer) => void> = {
  containerLogMaxSize: (x, l) => void (l.containerLogMaxSize = fileSize(x)),
  containerLogMaxFiles: (x, l) => void (l.containerLogMaxFiles = atLeast(2, fileInt(x))),
  containerLogMaxWorkers: (x, l) => void (l.containerLogMaxWorkers = atLeast(1, fileInt(x))),
  containerLogMonitorInterval: (x, l) => fileDuration(x, (ms) => (l.containerLogMonitorIntervalMs = ms)),
  podLogsMaxTotalSize: (x, l) => void (l.podLogsMaxTotalSize = fileSize(x)),
  containerdLogMaxSize: (x, l) => void (l.containerdLogMaxSize = fileSize(x)),
  containerdLogMaxFiles: (x, l) => void (l.containerdLogMaxFiles = atLeast(1, fileInt(x))),
  containerdLogLevel: (x, l) => void (l.containerdLogLevel = logLevel(fileStr(x))),
  imageGCHighThresholdPercent: (x, l) => void (l.imageGCHighThresholdPercent = percent(fileInt(x))),
  imageGCLowThresholdPercent: (x, l) => void (l.imageGCLowThresholdPercent = percent(fileInt(x))),
  imageMinimumGCAge: (x, l) => fileDuration(x, (ms) => (l.imageMinimumGCAgeMs = ms)),
  imageMaximumGCAge: (x, l) => void (l.imageMaximumGCAgeMs = v.durationMs(fileStr(x))),
  imageGCPeriod: (x, l) => fileDuration(x, (ms) => (l.imageGCPeriodMs = ms)),
  evictionHard: (x, l) => void (l.evictionHard = fileStringMap(x)),
  evictionSoft: (x, l) => void (l.evictionSoft = fileStringMap(x)),
  evictionSoftGracePeriod: (x, l) => void (l.evictionSoftGracePeriod = durationMap(fileStringMap(x))),
  evictionMinimumReclaim: (x, l) => void (l.evictionMinimumReclaim = fileStringMap(x)),
  evictionPressureTransitionPeriod: (x, l) => fileDuration(x, (ms) => (l.evictionPressureTransitionPeriodMs = ms)),
  evictionMaxPodGracePeriod: (x, l) => void (l.evictionMaxPodGracePeriod = fileInt(x)),
  mergeDefaultEvictionSettings: (x, l) => {
    if (typeof x !== "boolean") throw new v.ValueError(`expected true or false, found ${describe(x)}`);
    l.mergeDefaultEvictionSettings = x;
  },
  evictStaticPods: (x, l) => {
    if (typeof x !== "boolean") throw new v.ValueError(`expected true or false, found ${describe(x)}`);
    l.evictStaticPods = x;
  },
  offlineStart: (x, l) => {
    if (typeof x !== "boolean") throw new v.ValueError(`expected true or false, found ${describe(x)}`);
    l.offlineStart = x;
  },
  shutdownGracePeriod: (x, l) => void (l.shutdownGracePeriodMs = v.durationMs(fileStr(x))),
  shutdownGracePeriodCriticalPods: (x, l) => void (l.shutdownGracePeriodCriticalPodsMs = v.durationMs(fileStr(x))),
};

/** The checks across fields, as the kubelet's ValidateKubeletConfiguration makes them; the message names the fields. */
export function validateUpkeep(c: UpkeepConfig): string | undefined {
  if (c.imageGCLowThresholdPercent > c.imageGCHighThresholdPercent) {
    return `imageGCLowThresholdPercent (--image-gc-low-threshold) (${c.imageGCLowThresholdPercent}) must be less than or equal to imageGCHighThresholdPercent (--image-gc-high-threshold) (${c.imageGCHighThresholdPercent})`;
  }
  if (c.imageMaximumGCAgeMs !== 0 && c.imageMaximumGCAgeMs <= c.imageMinimumGCAgeMs) {
    return `imageMaximumGCAge ${formatGoDuration(c.imageMaximumGCAgeMs)} must be greater than imageMinimumGCAge ${formatGoDuration(c.imageMinimumGCAgeMs)}`;
  }
  if (c.shutdownGracePeriodCriticalPodsMs > c.shutdownGracePeriodMs) {
    return "shutdownGracePeriodCriticalPods (--shutdown-grace-period-critical-pods) must be <= shutdownGracePeriod (--shutdown-grace-period)";
  }
  return undefined;
}

const dur = (ms: number) => formatGoDuration(ms);
const GROUP = "Node upkeep (logs, images, eviction, shutdown)";

export const upkeepFlagDefs: readonly FlagDef[] = [
  { name: "container-log-max-size", type: "quantity", group: GROUP, field: "containerLogMaxSize", defaultText: "10Mi",
    usage: "A container's log is rotated when it reaches this size (checked as it grows, not only every monitor interval).",
    set: (s, raw) => void (s.layer.containerLogMaxSize = byteSize(raw)) },
  { name: "container-log-max-files", type: "int32", group: GROUP, field: "containerLogMaxFiles", defaultText: "5",
    usage: "Log files kept per container, the current one included; older rotated files are gzipped. At least 2.",
    set: (s, raw) => void (s.layer.containerLogMaxFiles = atLeast(2, v.intFromString(raw))) },
  { name: "container-log-max-workers", type: "int32", group: GROUP, field: "containerLogMaxWorkers", defaultText: "1",
    usage: "Containers whose logs are rotated at once.",
    set: (s, raw) => void (s.layer.containerLogMaxWorkers = atLeast(1, v.intFromString(raw))) },
  { name: "container-log-monitor-interval", type: "duration", group: GROUP, field: "containerLogMonitorInterval", defaultText: dur(upkeepDefaults.containerLogMonitorIntervalMs),
    usage: "Longest time between two checks of a container's log size.",
    set: (s, raw) => void (s.layer.containerLogMonitorIntervalMs = v.positiveDuration(raw)) },
  { name: "pod-logs-max-total-size", type: "quantity", group: GROUP, field: "podLogsMaxTotalSize", defaultText: "0 (no cap)",
    usage: "Cap on all container log files under --pod-logs-dir (bunlet flag): the oldest rotated files go first.",
    set: (s, raw) => void (s.layer.podLogsMaxTotalSize = byteSize(raw)) },
  { name: "containerd-log-max-size", type: "quantity", group: GROUP, field: "containerdLogMaxSize", defaultText: "10Mi",
    usage: "The embedded containerd's log is rotated at this size (bunlet flag).",
    set: (s, raw) => void (s.layer.containerdLogMaxSize = byteSize(raw)) },
  { name: "containerd-log-max-files", type: "int32", group: GROUP, field: "containerdLogMaxFiles", defaultText: "3",
    usage: "Files of the embedded containerd's log kept, the current one included (bunlet flag).",
    set: (s, raw) => void (s.layer.containerdLogMaxFiles = atLeast(1, v.intFromString(raw))) },
  { name: "containerd-log-level", type: "string", group: GROUP, field: "containerdLogLevel", defaultText: "info",
    usage: "Log level of the embedded containerd: trace, debug, info, warn, error (bunlet flag).",
    set: (s, raw) => void (s.layer.containerdLogLevel = logLevel(raw)) },
  { name: "image-gc-high-threshold", type: "int32", group: GROUP, field: "imageGCHighThresholdPercent", defaultText: "85",
    usage: "Image filesystem usage percent above which image GC runs; 100 disables it.",
    set: (s, raw) => void (s.layer.imageGCHighThresholdPercent = percent(v.intFromString(raw))) },
  { name: "image-gc-low-threshold", type: "int32", group: GROUP, field: "imageGCLowThresholdPercent", defaultText: "80",
    usage: "Image filesystem usage percent image GC frees down to.",
    set: (s, raw) => void (s.layer.imageGCLowThresholdPercent = percent(v.intFromString(raw))) },
  { name: "minimum-image-ttl-duration", type: "duration", group: GROUP, field: "imageMinimumGCAge", defaultText: dur(upkeepDefaults.imageMinimumGCAgeMs),
    usage: "Minimum age of an unused image before image GC may remove it.",
    set: (s, raw) => void (s.layer.imageMinimumGCAgeMs = v.durationMs(raw)) },
  { name: "image-gc-period", type: "duration", group: GROUP, field: "imageGCPeriod", defaultText: dur(upkeepDefaults.imageGCPeriodMs),
    usage: "How often image GC runs (bunlet flag; the kubelet's fixed ImageGCPeriod is 5m).",
    set: (s, raw) => void (s.layer.imageGCPeriodMs = v.positiveDuration(raw)) },
  { name: "eviction-hard", type: "mapStringString", group: GROUP, field: "evictionHard",
    defaultText: "imagefs.available<15%,imagefs.inodesFree<5%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%",
    usage: "Hard eviction thresholds, 'signal<value,...'; setting any clears the other defaults unless mergeDefaultEvictionSettings.",
    set: (s, raw) => void (s.layer.evictionHard = v.separatedMap(raw, "<", s.layer.evictionHard)) },
  { name: "eviction-soft", type: "mapStringString", group: GROUP, field: "evictionSoft",
    usage: "Soft eviction thresholds, 'signal<value,...'; each needs a grace period.",
    set: (s, raw) => void (s.layer.evictionSoft = v.separatedMap(raw, "<", s.layer.evictionSoft)) },
  { name: "eviction-soft-grace-period", type: "mapStringString", group: GROUP, field: "evictionSoftGracePeriod",
    usage: "Grace periods of soft thresholds, 'signal=duration,...'.",
    set: (s, raw) => void (s.layer.evictionSoftGracePeriod = { ...s.layer.evictionSoftGracePeriod, ...durationMap(v.separatedMap(raw, "=")) }) },
  { name: "eviction-minimum-reclaim", type: "mapStringString", group: GROUP, field: "evictionMinimumReclaim",
    usage: "Minimum amount reclaimed beyond a threshold once it is met, 'signal=quantity,...'.",
    set: (s, raw) => void (s.layer.evictionMinimumReclaim = v.separatedMap(raw, "=", s.layer.evictionMinimumReclaim)) },
  { name: "eviction-pressure-transition-period", type: "duration", group: GROUP, field: "evictionPressureTransitionPeriod",
    defaultText: dur(upkeepDefaults.evictionPressureTransitionPeriodMs),
    usage: "How long a pressure condition stays after its threshold stops being met.",
    set: (s, raw) => void (s.layer.evictionPressureTransitionPeriodMs = v.durationMs(raw)) },
  { name: "eviction-max-pod-grace-period", type: "int32", group: GROUP, field: "evictionMaxPodGracePeriod", defaultText: "0",
    usage: "Longest termination grace period (seconds) of a pod evicted for a soft threshold; 0 = the pod's own.",
    set: (s, raw) => void (s.layer.evictionMaxPodGracePeriod = v.intFromString(raw)) },
  { name: "evict-static-pods", bool: true, type: "", group: GROUP, field: "evictStaticPods", defaultText: "false",
    usage: "Let the eviction manager evict static pods (bunlet flag): on a standalone node every pod is static, and the kubelet never evicts those.",
    set: (s, raw) => void (s.layer.evictStaticPods = v.boolFromString(raw)) },
  { name: "offline-start", bool: true, type: "", group: GROUP, field: "offlineStart", defaultText: "true",
    usage: "Keep a checkpoint of this node's API pods and the ConfigMaps, Secrets, tokens and Services they reference under <root-dir>/checkpoint, and run them from it when bunlet starts while the apiserver is unreachable (bunlet flag); false waits for the apiserver as the kubelet does.",
    set: (s, raw) => void (s.layer.offlineStart = v.boolFromString(raw)) },
];
