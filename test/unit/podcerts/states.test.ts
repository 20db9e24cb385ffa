// A podCertificate projection's states (the kubelet's credState*): what each gives the volume,
// what observing its request does, and the podcertificate_states label.
import { describe, expect, test } from "bun:test";
import { encodePem } from "../../../src/podcerts/pem.ts";
import { ASSUME_DELETED_MS, credentialBundle, metricsState, observeRequest, requested, type CredState, type PodCertificateRequest } from "../../../src/podcerts/states.ts";

const T0 = Date.UTC(2026, 0, 1);
const key = new TextEncoder().encode("KEY");
const chain = encodePem("CERTIFICATE", Uint8Array.of(1, 2, 3));
const issued = (extra: object = {}): PodCertificateRequest => ({
  metadata: { name: "req-1", namespace: "ns" },
  status: {
    conditions: [{ type: "Issued", status: "True", reason: "Reason", message: "issued" }],
    certificateChain: `header text\n${chain}`,
    beginRefreshAt: new Date(T0 + 3600_000).toISOString(),
    notAfter: new Date(T0 + 7200_000).toISOString(),
  },
  ...extra,
});
const condition = (type: string): PodCertificateRequest => ({ metadata: { name: "req-1", namespace: "ns" }, status: { conditions: [{ type, status: "True", reason: "UnsupportedKeyType", message: "use ED25519" }] } });
const wait: Extract<CredState, { kind: "wait" }> = { kind: "wait", privateKey: key, pcrName: "req-1", abandonAt: T0 + ASSUME_DELETED_MS };
const fresh: Extract<CredState, { kind: "fresh" }> = { kind: "fresh", privateKey: key, certChain: new TextEncoder().encode(chain), beginRefreshAt: T0 + 3600_000, notAfter: T0 + 7200_000, overdueEventEmitted: false, expiredEventEmitted: false };
const waitRefresh = requested(fresh, new TextEncoder().encode("NEWKEY"), "req-2", T0 + 3600_000 + ASSUME_DELETED_MS) as Extract<CredState, { kind: "waitRefresh" }>;

describe("credentialBundle (getCredBundle)", () => {
  const cases: [string, CredState, string][] = [
    ["initial", { kind: "initial" }, "credential bundle is not issued yet"],
    ["wait", wait, "credential bundle is not issued yet"],
    ["denied", { kind: "denied", reason: "UnsupportedKeyType", message: 'use "ED25519"' }, 'PodCertificateRequest was permanently denied: reason="UnsupportedKeyType" message="use \\"ED25519\\""'],
    ["failed", { kind: "failed", reason: "SignerDown", message: "" }, 'PodCertificateRequest was permanently failed: reason="SignerDown" message=""'],
  ];
  for (const [name, state, message] of cases) test(`${name}: ${message}`, () => expect(() => credentialBundle(state)).toThrow(message));
  test("fresh and waitRefresh give the issued key and chain (the refresh key waits for its certificate)", () => {
    expect(new TextDecoder().decode(credentialBundle(fresh).privateKey)).toBe("KEY");
    expect(new TextDecoder().decode(credentialBundle(waitRefresh).privateKey)).toBe("KEY");
  });
});

describe("observeRequest", () => {
  test("Issued: fresh with the request's key, the chain cleaned, beginRefreshAt plus the jitter", () => {
    const seen = observeRequest(wait, "ns", issued(), T0, 1234);
    expect(seen.error).toBeUndefined();
    expect(seen.next.kind).toBe("fresh");
    const next = seen.next as Extract<CredState, { kind: "fresh" }>;
    expect(new TextDecoder().decode(next.certChain)).toBe(chain);
    expect(next.beginRefreshAt).toBe(T0 + 3600_000 + 1234);
    expect(next.notAfter).toBe(T0 + 7200_000);
    const refreshed = observeRequest(waitRefresh, "ns", issued(), T0, 0).next as Extract<CredState, { kind: "fresh" }>;
    expect(new TextDecoder().decode(refreshed.privateKey)).toBe("NEWKEY");
  });

  test("Denied and Failed are permanent, each with a Warning event naming the request", () => {
    expect(observeRequest(wait, "ns", condition("Denied"), T0, 0)).toEqual({
      next: { kind: "denied", reason: "UnsupportedKeyType", message: "use ED25519" },
      events: [{ reason: "Denied", message: 'PodCertificateRequest ns/req-1 was denied, reason="UnsupportedKeyType", message="use ED25519"' }],
    });
    expect(observeRequest(waitRefresh, "ns", condition("Failed"), T0, 0).events).toEqual([{ reason: "Failed", message: 'PodCertificateRequest ns/req-1 failed, reason="UnsupportedKeyType", message="use ED25519"' }]);
  });

  test("pending: no change; a pending refresh past its time warns once that it is overdue, and once that it expired", () => {
    const pending: PodCertificateRequest = { metadata: { name: "req-2", namespace: "ns" }, status: {} };
    expect(observeRequest(wait, "ns", pending, T0, 0)).toEqual({ next: wait, events: [] });
    const state = structuredClone(waitRefresh);
    expect(observeRequest(state, "ns", pending, T0 + 3600_000 + 11 * 60_000, 0).events).toEqual([{ reason: "CertificateOverdueForRefresh", message: "PodCertificate refresh overdue" }]);
    expect(observeRequest(state, "ns", pending, T0 + 7200_001, 0).events).toEqual([{ reason: "CertificateExpired", message: "PodCertificate expired" }]);
    expect(observeRequest(state, "ns", pending, T0 + 7300_000, 0).events).toEqual([]);
  });

  test("not in the watch: retried, until 10 minutes (and jitter) after creation it counts as deleted", () => {
    expect(observeRequest(wait, "ns", undefined, T0, 0)).toEqual({ next: wait, events: [], error: 'while getting PodCertificateRequest "ns/req-1": podcertificaterequest.certificates.k8s.io "req-1" not found' });
    expect(observeRequest(wait, "ns", undefined, T0 + ASSUME_DELETED_MS + 1, 0)).toEqual({ next: { kind: "initial" }, events: [], error: 'PodCertificateRequest "ns/req-1" appears to have been deleted' });
    const back = observeRequest(waitRefresh, "ns", undefined, T0 + 3600_000 + ASSUME_DELETED_MS + 1, 0);
    expect([back.next.kind, back.error]).toEqual(["fresh", "PodCertificateRequest appears to have been deleted"]);
  });
});

test("metricsState labels", () => {
  expect([metricsState({ kind: "initial" }, T0), metricsState(wait, T0), metricsState({ kind: "denied", reason: "", message: "" }, T0)]).toEqual(["not_yet_issued", "not_yet_issued", "denied"]);
  expect([metricsState(fresh, T0), metricsState(fresh, T0 + 3600_000 + 10 * 60_000 + 1), metricsState(waitRefresh, T0 + 7200_001)]).toEqual(["fresh", "overdue_for_refresh", "expired"]);
});
