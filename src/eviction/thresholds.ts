/**
 * Eviction thresholds as the kubelet parses them (pkg/kubelet/eviction/helpers.go
 * ParseThresholdConfig): `signal<quantity` or `signal<percent%` for hard and soft thresholds,
 * grace periods for the soft ones, minimum reclaims; the kubelet's defaults when evictionHard is
 * not given; the same error texts. Percentages are held exactly, in parts per million, and
 * quantities in bytes (or a count, for inodes and PIDs) as bigint: never floats.
 */
import { Quantity, QuantityError } from "../api/index.ts";

export type Signal =
  | "memory.available"
  | "allocatableMemory.available"
  | "nodefs.available"
  | "nodefs.inodesFree"
  | "imagefs.available"
  | "imagefs.inodesFree"
  | "pid.available";

const SIGNALS: readonly Signal[] = ["memory.available", "allocatableMemory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"];

/** Signals the kubelet knows and bunlet does not observe. */
const UNOBSERVED = new Set(["containerfs.available", "containerfs.inodesFree"]);

/** A threshold value: an absolute quantity (with the text it was given as), or a share of capacity in parts per million. */
export type ThresholdValue = { quantity: bigint; text?: string } | { ppm: bigint };

export interface Threshold {
  signal: Signal;
  value: ThresholdValue;
  /** 0 for a hard threshold. */
  gracePeriodMs: number;
  hard: boolean;
  minReclaim?: ThresholdValue;
}

export class ThresholdError extends Error {
  override readonly name = "ThresholdError";
}

/** The kubelet's DefaultEvictionHard. */
const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%",
  "imagefs.inodesFree": "5%",
};

function checkSignal(signal: string): Signal {
  if ((SIGNALS as readonly string[]).includes(signal)) return signal as Signal;
  if (UNOBSERVED.has(signal)) throw new ThresholdError(`eviction signal ${signal} is not supported by bunlet (it observes ${SIGNALS.join(", ")})`);
  throw new ThresholdError(`unsupported eviction signal ${signal}`);
}

/** "10%" or "7.5%" → parts per million, exactly. */
function parsePercentPpm(text: string): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?%$/.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new ThresholdError(`invalid percentage ${JSON.stringify(text)}`);
  const frac = (m[3] ?? "").padEnd(4, "0");
  if (frac.length > 4 && /[1-9]/.test(frac.slice(4))) throw new ThresholdError(`percentage ${JSON.stringify(text)} is finer than 0.0001%`);
  const ppm = BigInt(m[2] || "0") * 10_000n + BigInt(frac.slice(0, 4));
  return m[1] === "-" ? -ppm : ppm;
}

/**
 * parseThresholdStatement: undefined for "0%" and "100%" (the kubelet ignores them), an error
 * for a negative or zero quantity or a percentage outside 0–100%.
 */
function parseThresholdValue(signal: string, text: string): ThresholdValue | undefined {
  if (text.endsWith("%")) {
    if (text === "0%" || text === "100%") return undefined;
    const ppm = parsePercentPpm(text);
    if (ppm < 0n) throw new ThresholdError(`eviction percentage threshold ${signal} must be >= 0%: ${text}`);
    if (ppm > 1_000_000n) throw new ThresholdError(`eviction percentage threshold ${signal} must be <= 100%: ${text}`);
    return { ppm };
  }
  let q: Quantity;
  try {
    q = Quantity.parse(text);
  } catch (err) {
    if (err instanceof QuantityError) throw new ThresholdError(`eviction threshold ${signal}: ${err.message}: ${text}`);
    throw err;
  }
  const n = q.value();
  if (n <= 0n) throw new ThresholdError(`eviction threshold ${signal} must be positive: ${q.toString()}`);
  return { quantity: n, text: q.toString() };
}

export interface ThresholdConfig {
  /** undefined = the kubelet's defaults. */
  evictionHard?: Record<string, string>;
  evictionSoft: Record<string, string>;
  /** signal → ms. */
  evictionSoftGracePeriod: Record<string, number>;
  evictionMinimumReclaim: Record<string, string>;
  mergeDefaultEvictionSettings: boolean;
  /** enforceNodeAllocatable: with "pods", each hard memory.available threshold is also one on allocatableMemory.available (kubepods' own). */
  enforceNodeAllocatable?: readonly string[];
}

/**
 * The hard thresholds as node allocatable reserves them (GetNodeAllocatableReservation through
 * GetThresholdQuantity): a quantity as it is, a percentage as the float32 Go keeps it in.
 */
export function hardThresholdsForAllocatable(thresholds: readonly Threshold[]): { signal: string; quantity?: bigint; percentage?: number }[] {
  return thresholds
    .filter((t) => t.hard)
    .map((t) => ("quantity" in t.value ? { signal: t.signal, quantity: t.value.quantity } : { signal: t.signal, percentage: Math.fround(Number(t.value.ppm) / 1e6) }));
}

/** ParseThresholdConfig; throws ThresholdError naming the signal. */
export function parseThresholdConfig(config: ThresholdConfig): Threshold[] {
  const hard = config.evictionHard === undefined ? { ...DEFAULT_EVICTION_HARD } : config.mergeDefaultEvictionSettings ? { ...DEFAULT_EVICTION_HARD, ...config.evictionHard } : { ...config.evictionHard };
  const out: Threshold[] = [];
  for (const [name, text] of Object.entries(hard)) {
    const signal = checkSignal(name);
    const value = parseThresholdValue(signal, text);
    if (value) out.push({ signal, value, gracePeriodMs: 0, hard: true });
  }
  for (const [name, text] of Object.entries(config.evictionSoft)) {
    const signal = checkSignal(name);
    const value = parseThresholdValue(signal, text);
    if (!value) continue;
    const gracePeriodMs = config.evictionSoftGracePeriod[name];
    if (gracePeriodMs === undefined) throw new ThresholdError(`grace period must be specified for the soft eviction threshold ${signal}`);
    out.push({ signal, value, gracePeriodMs, hard: false });
  }
  for (const name of Object.keys(config.evictionSoftGracePeriod)) {
    if (!(name in config.evictionSoft)) checkSignal(name);
  }
  for (const [name, text] of Object.entries(config.evictionMinimumReclaim)) {
    const signal = checkSignal(name);
    let value: ThresholdValue;
    if (text.endsWith("%")) {
      const ppm = parsePercentPpm(text);
      if (ppm < 0n || ppm > 1_000_000n) throw new ThresholdError(`minimum reclaim percentage ${signal} must be between 0% and 100%: ${text}`);
      value = { ppm };
    } else value = { quantity: parseReclaimQuantity(signal, text) };
    for (const t of out) if (t.signal === signal) t.minReclaim = value;
  }
  // addAllocatableThresholds: the pods' cgroup is defended at the node's memory threshold too.
  if (config.enforceNodeAllocatable?.includes("pods")) {
    for (const t of [...out]) {
      if (t.signal === "memory.available" && t.hard) out.push({ ...t, signal: "allocatableMemory.available" });
    }
  }
  return out;
}

function parseReclaimQuantity(signal: Signal, text: string): bigint {
  try {
    const n = Quantity.parse(text).value();
    if (n < 0n) throw new ThresholdError(`negative reclaim defined for eviction signal ${signal}: ${text}`);
    return n;
  } catch (err) {
    if (err instanceof QuantityError) throw new ThresholdError(`minimum reclaim ${signal}: ${err.message}: ${text}`);
    throw err;
  }
}

/** GetThresholdQuantity: the absolute amount a value stands for, given the capacity. */
export function thresholdQuantity(value: ThresholdValue, capacity: bigint): bigint {
  return "quantity" in value ? value.quantity : (capacity * value.ppm) / 1_000_000n;
}

/** The threshold as the kubelet prints it in messages: a quantity ("100Mi") or a percentage's amount. */
export function formatThresholdValue(value: ThresholdValue, capacity: bigint): string {
  return "text" in value && value.text !== undefined ? value.text : formatQuantity(thresholdQuantity(value, capacity));
}

/** Bytes as resource.Quantity's canonical BinarySI string, the way the kubelet's messages show them. */
function formatQuantity(n: bigint): string {
  return Quantity.of(n, "BinarySI").toString();
}
