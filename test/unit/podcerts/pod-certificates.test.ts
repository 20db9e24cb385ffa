// The node's pod certificate manager: a pod's projection gets a request carrying the pod's
// identity, its volume waits for the signer, the issued chain and the node's key are handed over,
// a refresh starts at beginRefreshAt, and the private key never reaches a log line or an event.
import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { generateKeyAndProof } from "../../../src/podcerts/keys.ts";
import { encodePem } from "../../../src/podcerts/pem.ts";
import { createPodCertificates, ISSUE_WAIT_MS } from "../../../src/podcerts/pod-certificates.ts";
import { fakeApi, settle } from "./fake-api.ts";

const PCRS = "/apis/certificates.k8s.io/v1/podcertificaterequests";
const T0 = Date.UTC(2026, 0, 1);
const dec = new TextDecoder();

const pod: Pod = {
  metadata: { name: "web", namespace: "ns", uid: "pod-uid" },
  spec: {
    serviceAccountName: "sa",
    containers: [{ name: "c", image: "i" }],
    volumes: [{ name: "tls", projected: { sources: [{ clusterTrustBundle: { name: "x", path: "ca.pem" } }, { podCertificate: { signerName: "example.com/s", keyType: "ED25519", maxExpirationSeconds: 3600, userAnnotations: { "example.com/path": "/w" }, credentialBundlePath: "b.pem" } }] } }],
  },
};

function setUp() {
  const clock = new FakeClock(T0);
  const api = fakeApi({
    now: () => clock.now(),
    objects: { "/api/v1/namespaces/ns/serviceaccounts/sa": { metadata: { uid: "sa-uid" } }, "/api/v1/nodes/node-a": { metadata: { uid: "node-uid" } } },
  });
  const log = createMemoryLogger();
  const events: string[] = [];
  let keys = 0;
  const certs = createPodCertificates({
    client: api.client,
    nodeName: "node-a",
    recordEvent: (p, reason, message) => events.push(`${p.metadata.name} ${reason} ${message}`),
    clock,
    random: () => 0,
    log,
    // A recognisable key per request, so the test can look for it everywhere.
    generateKeyAndProof: async () => ({ keyPEM: new TextEncoder().encode(`-----BEGIN PRIVATE KEY-----\nSECRETKEY${++keys}\n-----END PRIVATE KEY-----\n`), stubPKCS10Request: Uint8Array.of(0x30, 0x00) }),
  });
  const stop = new AbortController();
  const running = certs.run(stop.signal);
  /** The signer: the request's status set to issued, with a chain and its times. */
  const issue = async (name: string, chain: string, beginRefreshAt: number, notAfter: number) => {
    const pcr = api.collection(PCRS).find((p) => p.metadata?.name === name)!;
    await api.send(PCRS, "MODIFIED", { ...pcr, status: { conditions: [{ type: "Issued", status: "True" }], certificateChain: chain, beginRefreshAt: new Date(beginRefreshAt).toISOString(), notAfter: new Date(notAfter).toISOString() } });
  };
  return { clock, api, log, events, certs, issue, finish: async () => (stop.abort(), await running) };
}

describe("createPodCertificates", () => {
  test("a request with the pod's identity, then the key and the issued chain once the signer answers", async () => {
    const { api, certs, issue, finish } = setUp();
    const bundle = certs.credentialBundle(pod, "tls", 1);
    await settle();
    const created = api.calls.filter((c) => c.verb === "create");
    expect(created.map((c) => c.path)).toEqual(["/apis/certificates.k8s.io/v1/namespaces/ns/podcertificaterequests"]);
    expect(created[0].body).toEqual({
      apiVersion: "certificates.k8s.io/v1",
      kind: "PodCertificateRequest",
      metadata: { namespace: "ns", generateName: "req-", ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web", uid: "pod-uid" }] },
      spec: {
        signerName: "example.com/s",
        podName: "web",
        podUID: "pod-uid",
        serviceAccountName: "sa",
        serviceAccountUID: "sa-uid",
        nodeName: "node-a",
        nodeUID: "node-uid",
        maxExpirationSeconds: 3600,
        stubPKCS10Request: "MAA=",
        unverifiedUserAnnotations: { "example.com/path": "/w" },
      },
    });
    // The only list and watch: this node's requests, as the Node authorizer requires.
    expect(api.calls.filter((c) => c.verb !== "create" && c.verb !== "get").map((c) => `${c.verb} ${c.path} ${c.fieldSelector}`)).toEqual([`list ${PCRS} spec.nodeName=node-a`, `watch ${PCRS} spec.nodeName=node-a`]);
    const leaf = encodePem("CERTIFICATE", Uint8Array.of(1));
    await issue("req-1", `leaf\n${leaf}`, T0 + 1800_000, T0 + 3600_000);
    const got = await bundle;
    expect(dec.decode(got.privateKey)).toContain("SECRETKEY1");
    expect(dec.decode(got.certificateChain)).toBe(leaf);
    await finish();
  });

  test("with no answer the volume waits ISSUE_WAIT_MS, then fails as not issued yet", async () => {
    const { clock, certs, finish } = setUp();
    // (Bun's expect().rejects would wait on the pending promise before the clock moves.)
    const failed = certs.credentialBundle(pod, "tls", 1).catch((err: Error) => err.message);
    await settle();
    await clock.advance(ISSUE_WAIT_MS - 1);
    await settle();
    expect(await Promise.race([failed, "still waiting"])).toBe("still waiting");
    await clock.advance(1);
    expect(await failed).toBe("credential bundle is not issued yet");
    await finish();
  });

  test("a refresh starts at beginRefreshAt: a new request and key, the old pair served until it is issued", async () => {
    const { clock, api, certs, issue, finish } = setUp();
    const first = certs.credentialBundle(pod, "tls", 1);
    await settle();
    await issue("req-1", encodePem("CERTIFICATE", Uint8Array.of(1)), T0 + 60_000, T0 + 3600_000);
    await first;
    await clock.advance(60_000); // beginRefreshAt (the jitter is 0 here); the refresh pass finds it due
    await clock.advance(60_000);
    await settle();
    expect(api.collection(PCRS).map((p) => p.metadata?.name)).toEqual(["req-1", "req-2"]);
    expect(dec.decode((await certs.credentialBundle(pod, "tls", 1)).privateKey)).toContain("SECRETKEY1");
    await issue("req-2", encodePem("CERTIFICATE", Uint8Array.of(2)), T0 + 1800_000, T0 + 3600_000);
    await settle();
    const after = await certs.credentialBundle(pod, "tls", 1);
    expect([dec.decode(after.privateKey).includes("SECRETKEY2"), dec.decode(after.certificateChain)]).toEqual([true, encodePem("CERTIFICATE", Uint8Array.of(2))]);
    await finish();
  });

  test("a denied request is permanent, with a Warning event; a forgotten pod is asked for again from the start", async () => {
    const { api, certs, events, finish } = setUp();
    const bundle = certs.credentialBundle(pod, "tls", 1).catch((err: Error) => err.message);
    await settle();
    const pcr = api.collection(PCRS)[0];
    await api.send(PCRS, "MODIFIED", { ...pcr, status: { conditions: [{ type: "Denied", status: "True", reason: "UnsupportedKeyType", message: "use ECDSAP256" }] } });
    expect(await bundle).toBe('PodCertificateRequest was permanently denied: reason="UnsupportedKeyType" message="use ECDSAP256"');
    expect(events).toEqual(['web Denied PodCertificateRequest ns/req-1 was denied, reason="UnsupportedKeyType", message="use ECDSAP256"']);
    expect(certs.metricReport()).toEqual([{ signerName: "example.com/s", state: "denied", count: 1 }]);
    certs.forgetPod("pod-uid");
    expect(certs.metricReport()).toEqual([]);
    void certs.credentialBundle(pod, "tls", 1).catch(() => {});
    await settle();
    expect(api.collection(PCRS)).toHaveLength(2);
    await finish();
  });

  test("the private key is in no log line and no event, at any verbosity, whatever happens", async () => {
    const { clock, api, log, events, certs, issue, finish } = setUp();
    const bundle = certs.credentialBundle(pod, "tls", 1);
    await settle();
    await issue("req-1", encodePem("CERTIFICATE", Uint8Array.of(1)), T0, T0 + 60_000);
    await bundle;
    // Refresh, refresh overdue, expiry, a request that vanished: every path that logs or records.
    await api.send(PCRS, "DELETED", api.collection(PCRS)[0]);
    for (let i = 0; i < 30; i++) await clock.advance(60_000);
    await settle();
    expect(events.some((e) => e.includes("CertificateOverdueForRefresh")) && events.some((e) => e.includes("CertificateExpired"))).toBe(true);
    const everything = JSON.stringify(log.lines) + JSON.stringify(events);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(everything).not.toContain("SECRETKEY");
    expect(everything).not.toContain("PRIVATE KEY");
    await finish();
  });
});

test("generateKeyAndProof: an unknown key type fails with the kubelet's words", async () => {
  await expect(generateKeyAndProof("DSA1024")).rejects.toThrow('unknown key type "DSA1024"');
});
