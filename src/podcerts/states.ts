/**
 * One podCertificate projection's credentials (pkg/kubelet/podcertificate's projectionRecord), as
 * a union of states with the kubelet's transitions:
 *
 *   initial ─► wait ─► fresh ─► waitRefresh ─► fresh …
 *                 └─► denied / failed ◄──┘   (permanent)
 *
 * A request that has not appeared in the node's watch 10 minutes (plus jitter) after it was
 * created is taken as deleted: wait goes back to initial (a new request), waitRefresh back to
 * fresh (a new refresh). These functions decide; the manager acts (creates requests, records
 * events). The private keys live only in these records, never in a log line or an event.
 */
import { cleanCertificateChain } from "./pem.ts";

/** certificates.k8s.io/v1 PodCertificateRequest, the fields the node writes and reads. */
export interface PodCertificateRequest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string; resourceVersion?: string };
  spec?: { podUID?: string; signerName?: string; nodeName?: string };
  status?: {
    conditions?: { type: string; status?: string; reason?: string; message?: string }[];
    certificateChain?: string;
    notBefore?: string;
    beginRefreshAt?: string;
    notAfter?: string;
  };
}

interface Issued {
  privateKey: Uint8Array;
  certChain: Uint8Array;
  beginRefreshAt: number;
  notAfter: number;
  overdueEventEmitted: boolean;
  expiredEventEmitted: boolean;
}

export type CredState =
  | { kind: "initial" }
  | { kind: "wait"; privateKey: Uint8Array; pcrName: string; abandonAt: number }
  | { kind: "denied"; reason: string; message: string }
  | { kind: "failed"; reason: string; message: string }
  | ({ kind: "fresh" } & Issued)
  | ({ kind: "waitRefresh"; refreshPrivateKey: Uint8Array; refreshPCRName: string; refreshAbandonAt: number } & Issued);

/** After this long without the request in the watch it is taken as deleted. */
export const ASSUME_DELETED_MS = 10 * 60_000;
/** A certificate this long past beginRefreshAt is overdue. */
const REFRESH_OVERDUE_MS = 10 * 60_000;
/** jitterDuration: up to 5 minutes, so projections do not create their requests together. */
export const MAX_JITTER_MS = 5 * 60_000;

export interface Credentials {
  privateKey: Uint8Array;
  certificateChain: Uint8Array;
}

/** getCredBundle: the key and chain, or the kubelet's error for the state. */
export function credentialBundle(state: CredState): Credentials {
  switch (state.kind) {
    case "initial":
    case "wait":
      throw new Error("credential bundle is not issued yet");
    case "denied":
      throw new Error(`PodCertificateRequest was permanently denied: reason=${JSON.stringify(state.reason)} message=${JSON.stringify(state.message)}`);
    case "failed":
      throw new Error(`PodCertificateRequest was permanently failed: reason=${JSON.stringify(state.reason)} message=${JSON.stringify(state.message)}`);
    case "fresh":
    case "waitRefresh":
      return { privateKey: state.privateKey, certificateChain: state.certChain };
  }
}

/** metricsState: the podcertificate_states label of a state at now. */
export function metricsState(state: CredState, now: number): "not_yet_issued" | "denied" | "failed" | "expired" | "overdue_for_refresh" | "fresh" {
  if (state.kind === "initial" || state.kind === "wait") return "not_yet_issued";
  if (state.kind === "denied" || state.kind === "failed") return state.kind;
  if (now > state.notAfter) return "expired";
  if (now > state.beginRefreshAt + REFRESH_OVERDUE_MS) return "overdue_for_refresh";
  return "fresh";
}

export interface PodEvent {
  reason: string;
  message: string;
}

/** What observing a request decided: the next state, the Warning events, and an error to retry on. */
export interface Observation {
  next: CredState;
  events: PodEvent[];
  /** Set: the projection is retried after its backoff, with this in the log. */
  error?: string;
}

/** The Warning events of a certificate past its refresh time or its expiry, each once. */
export function lateEvents(state: Issued, now: number): PodEvent[] {
  const events: PodEvent[] = [];
  if (now > state.beginRefreshAt + REFRESH_OVERDUE_MS && !state.overdueEventEmitted) {
    events.push({ reason: "CertificateOverdueForRefresh", message: "PodCertificate refresh overdue" });
    state.overdueEventEmitted = true;
  }
  if (now > state.notAfter && !state.expiredEventEmitted) {
    events.push({ reason: "CertificateExpired", message: "PodCertificate expired" });
    state.expiredEventEmitted = true;
  }
  return events;
}

function issuedFrom(state: Issued): Issued {
  const { privateKey, certChain, beginRefreshAt, notAfter, overdueEventEmitted, expiredEventEmitted } = state;
  return { privateKey, certChain, beginRefreshAt, notAfter, overdueEventEmitted, expiredEventEmitted };
}

/**
 * The wait and waitRefresh cases of handleProjection: the request as the node's watch has it
 * (undefined: not there), at now; jitterMs delays the next refresh.
 */
export function observeRequest(state: Extract<CredState, { kind: "wait" | "waitRefresh" }>, namespace: string, pcr: PodCertificateRequest | undefined, now: number, jitterMs: number): Observation {
  const name = state.kind === "wait" ? state.pcrName : state.refreshPCRName;
  const ref = `${namespace}/${name}`;
  if (!pcr) {
    const abandonAt = state.kind === "wait" ? state.abandonAt : state.refreshAbandonAt;
    if (now > abandonAt) {
      if (state.kind === "wait") return { next: { kind: "initial" }, events: [], error: `PodCertificateRequest ${JSON.stringify(ref)} appears to have been deleted` };
      return { next: { kind: "fresh", ...issuedFrom(state) }, events: [], error: "PodCertificateRequest appears to have been deleted" };
    }
    return { next: state, events: [], error: `while getting PodCertificateRequest ${JSON.stringify(ref)}: podcertificaterequest.certificates.k8s.io ${JSON.stringify(name)} not found` };
  }
  const pcrRef = `${pcr.metadata?.namespace ?? ""}/${pcr.metadata?.name ?? ""}`;
  for (const cond of pcr.status?.conditions ?? []) {
    const reason = cond.reason ?? "";
    const message = cond.message ?? "";
    if (cond.type === "Denied") {
      return { next: { kind: "denied", reason, message }, events: [{ reason: "Denied", message: `PodCertificateRequest ${pcrRef} was denied, reason=${JSON.stringify(reason)}, message=${JSON.stringify(message)}` }] };
    }
    if (cond.type === "Failed") {
      return { next: { kind: "failed", reason, message }, events: [{ reason: "Failed", message: `PodCertificateRequest ${pcrRef} failed, reason=${JSON.stringify(reason)}, message=${JSON.stringify(message)}` }] };
    }
    if (cond.type === "Issued") {
      const status = pcr.status ?? {};
      return {
        next: {
          kind: "fresh",
          privateKey: state.kind === "wait" ? state.privateKey : state.refreshPrivateKey,
          certChain: cleanCertificateChain(status.certificateChain ?? ""),
          beginRefreshAt: Date.parse(status.beginRefreshAt ?? "") + jitterMs,
          notAfter: Date.parse(status.notAfter ?? ""),
          overdueEventEmitted: false,
          expiredEventEmitted: false,
        },
        events: [],
      };
    }
  }
  // Still pending: wait for the next change of the request (or the next refresh pass).
  return { next: state, events: state.kind === "waitRefresh" ? lateEvents(state, now) : [] };
}

/** The request was created: wait for it (initial) or for its refresh (fresh). */
export function requested(state: Extract<CredState, { kind: "initial" | "fresh" }>, privateKey: Uint8Array, pcrName: string, abandonAt: number): CredState {
  if (state.kind === "initial") return { kind: "wait", privateKey, pcrName, abandonAt };
  return { kind: "waitRefresh", ...issuedFrom(state), refreshPrivateKey: privateKey, refreshPCRName: pcrName, refreshAbandonAt: abandonAt };
}
