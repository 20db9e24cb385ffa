/**
 * The eviction manager's bookkeeping between two rounds, pure (pkg/kubelet/eviction/helpers.go):
 * which thresholds are met (with minimum reclaim once they were), since when, which node
 * conditions they raise and for how long (evictionPressureTransitionPeriod), which thresholds
 * have waited out their grace period, and which one to act on first.
 */
import type { Observations } from "./signals.ts";
import { thresholdQuantity, type Signal, type Threshold } from "./thresholds.ts";

export type NodeCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";

/** The resource a signal starves, as the kubelet names it in messages ("The node was low on resource: memory."). */
export const SIGNAL_RESOURCE: Record<Signal, string> = {
  "memory.available": "memory",
  "allocatableMemory.available": "memory",
  "nodefs.available": "ephemeral-storage",
  "imagefs.available": "ephemeral-storage",
  "nodefs.inodesFree": "inodes",
  "imagefs.inodesFree": "inodes",
  "pid.available": "pids",
};

const SIGNAL_CONDITION: Record<Signal, NodeCondition> = {
  "memory.available": "MemoryPressure",
  "allocatableMemory.available": "MemoryPressure",
  "nodefs.available": "DiskPressure",
  "imagefs.available": "DiskPressure",
  "nodefs.inodesFree": "DiskPressure",
  "imagefs.inodesFree": "DiskPressure",
  "pid.available": "PIDPressure",
};

const key = (t: Threshold) => `${t.signal}/${t.hard ? "hard" : "soft"}`;

/** thresholdsMet: available < threshold (+ minimum reclaim when enforced). */
export function thresholdsMet(thresholds: readonly Threshold[], observations: Observations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const observed = observations.get(t.signal);
    if (!observed) return false;
    let quantity = thresholdQuantity(t.value, observed.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, observed.capacity);
    return quantity > observed.available;
  });
}

function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const seen = new Set(a.map(key));
  return [...a, ...b.filter((t) => !seen.has(key(t)))];
}

export interface EvictionState {
  /** Thresholds acted on last round (their minimum reclaim holds until met). */
  thresholdsMet: Threshold[];
  /** key → when first observed. */
  firstObservedAt: Map<string, { threshold: Threshold; at: number }>;
  lastObservedAt: Map<NodeCondition, number>;
}

export const initialState = (): EvictionState => ({ thresholdsMet: [], firstObservedAt: new Map(), lastObservedAt: new Map() });

export interface RoundResult {
  state: EvictionState;
  /** Conditions reported True now (observed within the transition period). */
  conditions: Set<NodeCondition>;
  /** Thresholds whose grace period passed: the ones to act on, most urgent first. */
  actOn: Threshold[];
}

/** One synchronize round's bookkeeping. */
export function evaluate(thresholds: readonly Threshold[], observations: Observations, prev: EvictionState, now: number, transitionPeriodMs: number): RoundResult {
  let met = thresholdsMet(thresholds, observations, false);
  if (prev.thresholdsMet.length > 0) met = mergeThresholds(met, thresholdsMet(prev.thresholdsMet, observations, true));
  const firstObservedAt = new Map<string, { threshold: Threshold; at: number }>();
  for (const t of met) firstObservedAt.set(key(t), { threshold: t, at: prev.firstObservedAt.get(key(t))?.at ?? now });
  const lastObservedAt = new Map(prev.lastObservedAt);
  for (const t of met) lastObservedAt.set(SIGNAL_CONDITION[t.signal], now);
  const conditions = new Set<NodeCondition>();
  for (const [c, at] of lastObservedAt) if (now - at < transitionPeriodMs || at === now) conditions.add(c);
  const actOn = [...firstObservedAt.values()].filter(({ threshold, at }) => now - at >= threshold.gracePeriodMs).map(({ threshold }) => threshold);
  return { state: { thresholdsMet: actOn, firstObservedAt, lastObservedAt }, conditions, actOn: byEvictionPriority(actOn) };
}

/** byEvictionPriority: memory first, then signals with node-level reclaim (disk), then the rest. */
function byEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  const rank = (t: Threshold) => (SIGNAL_RESOURCE[t.signal] === "memory" ? 0 : SIGNAL_RESOURCE[t.signal] === "pids" ? 2 : 1);
  return [...thresholds].sort((a, b) => rank(a) - rank(b));
}

/** The signals whose pressure a node-level reclaim (dead containers, unused images) can relieve. */
export function hasNodeLevelReclaim(signal: Signal): boolean {
  return signal.startsWith("nodefs.") || signal.startsWith("imagefs.");
}
