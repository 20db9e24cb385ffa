/**
 * Feature gates: --feature-gates "A=true,B=false" and the featureGates map. Names bunlet does
 * not know are rejected with the kubelet's words ("unrecognized feature gate: X"). Besides the
 * gates bunlet acts on, the kubelet gates of reference §11.3 are recognised so configs written
 * for a kubelet load; bunlet behaves as their default whatever they are set to, and says so.
 */
import { boolFromString, ValueError } from "./values.ts";

interface GateSpec {
  default: boolean;
  /** bunlet changes behaviour with this gate. */
  honored: boolean;
  /** GA gates cannot be moved off their default (the kubelet's LockToDefault). */
  locked?: boolean;
}

const knownGates: Readonly<Record<string, GateSpec>> = {
  // The kubelet's default is off (alpha); bunlet's evented PLEG falls back and recovers, so on.
  EventedPLEG: { default: true, honored: true },
  SidecarContainers: { default: true, honored: false, locked: true },
  PodReadyToStartContainersCondition: { default: true, honored: false },
  KubeletCrashLoopBackOffMax: { default: true, honored: false },
  ReduceDefaultCrashLoopBackOffDecay: { default: false, honored: false },
  ContainerRestartRules: { default: true, honored: false },
  RestartAllContainersOnContainerExits: { default: false, honored: false },
  KubeletEnsureSecretPulledImages: { default: false, honored: false },
  InPlacePodVerticalScaling: { default: true, honored: false },
  PodObservedGenerationTracking: { default: true, honored: false },
  CRIListStreaming: { default: false, honored: false },
  KubeletFineGrainedAuthz: { default: true, honored: false },
  ContainerCheckpoint: { default: true, honored: false },
  NodeLogQuery: { default: false, honored: false },
  PreventStaticPodAPIReferences: { default: true, honored: false },
  // qosReserved: memory limits on the burstable and besteffort tiers (alpha upstream, off).
  QOSReserved: { default: false, honored: true },
};

export function defaultGates(): Record<string, boolean> {
  return Object.fromEntries(Object.entries(knownGates).map(([name, spec]) => [name, spec.default]));
}

/** Checks one gate setting; throws ValueError in the kubelet's wording. */
export function checkGate(name: string, value: boolean): void {
  const spec = Object.hasOwn(knownGates, name) ? knownGates[name] : undefined;
  if (spec === undefined) throw new ValueError(`unrecognized feature gate: ${name}`);
  if (spec.locked && value !== spec.default) {
    throw new ValueError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
  }
}

/** Parses "A=true, B=false"; a later flag occurrence merges over an earlier one. */
export function parseGateList(s: string, into: Record<string, boolean>): Record<string, boolean> {
  const out = { ...into };
  for (const item of s.split(",")) {
    if (item === "") continue;
    const eq = item.indexOf("=");
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new ValueError(`missing bool value for ${name}`);
    const raw = item.slice(eq + 1).trim();
    let value: boolean;
    try {
      value = boolFromString(raw);
    } catch {
      throw new ValueError(`invalid value of ${name}=${raw}, expected true or false`);
    }
    checkGate(name, value);
    out[name] = value;
  }
  return out;
}

/** Gates set explicitly that bunlet does not act on. */
export function inertGates(set: Record<string, boolean>): Array<{ name: string; value: boolean; default: boolean }> {
  return Object.entries(set)
    .filter(([name]) => !knownGates[name].honored)
    .map(([name, value]) => ({ name, value, default: knownGates[name].default }));
}
