/**
 * The pod's QoS class (pkg/apis/core/v1/helper/qos ComputePodQOS): BestEffort without any cpu or
 * memory request or limit, Guaranteed when every container limits both and requests equal
 * limits, Burstable otherwise. Requests left out default to the limits, as API defaulting does.
 */
import type { Container, Pod } from "../api/index.ts";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

const qosResources = ["cpu", "memory"] as const;

const suffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A resource quantity ("100m", "1.5", "512Mi", "1e3") as a number; NaN when malformed. */
export function parseQuantity(value: string | number): number {
  if (typeof value === "number") return value;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|([a-zA-Z]*))$/.exec(value.trim());
  if (!match) return Number.NaN;
  const [, digits, exponent, suffix = ""] = match;
  const multiplier = exponent !== undefined ? 10 ** Number(exponent) : suffixes[suffix];
  return multiplier === undefined ? Number.NaN : Number(digits) * multiplier;
}

function positive(list: Record<string, string | number> | undefined, name: string): number | undefined {
  const raw = list?.[name];
  if (raw === undefined) return undefined;
  const n = parseQuantity(raw);
  return n > 0 ? n : undefined;
}

export function computePodQOS(pod: Pod): QOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const containers: Container[] = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  for (const container of containers) {
    const res = container.resources;
    let limitsFound = 0;
    for (const name of qosResources) {
      const limit = positive(res?.limits, name);
      const request = res?.requests?.[name] !== undefined ? positive(res.requests, name) : limit;
      if (request !== undefined) requests.set(name, (requests.get(name) ?? 0) + request);
      if (limit !== undefined) {
        limits.set(name, (limits.get(name) ?? 0) + limit);
        limitsFound++;
      }
    }
    if (limitsFound < qosResources.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (limit === undefined || !sameQuantity(limit, request)) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}

/** Equal up to float rounding (quantities are summed as floats). */
function sameQuantity(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}
