// The node's ClusterTrustBundles: found by discovery on first use, one reflector for the whole
// node, each read answered from it with the kubelet's errors.
import { describe, expect, test } from "bun:test";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { decodeAllPem, encodePem } from "../../../src/podcerts/pem.ts";
import { createTrustBundles } from "../../../src/podcerts/trust-bundles.ts";
import { fakeApi, settle } from "./fake-api.ts";

const V1 = "/apis/certificates.k8s.io/v1/clustertrustbundles";
const cert = (n: number) => encodePem("CERTIFICATE", Uint8Array.of(0x30, n));
const ctb = (name: string, signerName: string, ...certs: number[]) => ({ metadata: { name, labels: { team: "a" } }, spec: { signerName, trustBundle: certs.map(cert).join("") } });
const certsIn = (b: Uint8Array) => decodeAllPem(b).map((x) => x.bytes[1]).sort();

function setUp(discovery: Record<string, string[]>) {
  const api = fakeApi({ discovery });
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const bundles = createTrustBundles({ client: api.client, clock, random: () => 0.5, log });
  const stop = new AbortController();
  const running = bundles.run(stop.signal);
  return { api, clock, log, bundles, finish: async () => (stop.abort(), await running) };
}

describe("createTrustBundles", () => {
  test("nothing is read before a pod asks; then one list and watch of every bundle answers all reads and follows changes", async () => {
    const { api, bundles, finish } = setUp({ "certificates.k8s.io/v1": ["clustertrustbundles", "podcertificaterequests"] });
    await settle();
    expect(api.calls).toEqual([]);
    await api.send(V1, "ADDED", ctb("example.com:s:1", "example.com/s", 1, 2));
    expect(certsIn(await bundles.trustAnchorsBySigner("example.com/s", {}, false))).toEqual([1, 2]);
    await api.send(V1, "ADDED", ctb("example.com:s:2", "example.com/s", 2, 3));
    await api.send(V1, "ADDED", ctb("plain", "", 9));
    await settle();
    expect(certsIn(await bundles.trustAnchorsBySigner("example.com/s", { matchLabels: { team: "a" } }, false))).toEqual([1, 2, 3]);
    expect(certsIn(await bundles.trustAnchorsByName("plain", false))).toEqual([9]);
    await api.send(V1, "DELETED", ctb("plain", "", 9));
    await settle();
    await expect(bundles.trustAnchorsByName("plain", false)).rejects.toThrow('while getting ClusterTrustBundle: clustertrustbundle.certificates.k8s.io "plain" not found');
    expect(await bundles.trustAnchorsByName("plain", true)).toHaveLength(0);
    expect(api.calls.map((c) => `${c.verb} ${c.path}`)).toEqual([`get /apis/certificates.k8s.io/v1`, `list ${V1}`, `watch ${V1}`]);
    await finish();
  });

  test("a signer and selector that match nothing fail unless optional", async () => {
    const { bundles, finish } = setUp({ "certificates.k8s.io/v1": ["clustertrustbundles"] });
    await expect(bundles.trustAnchorsBySigner("example.com/none", {}, false)).rejects.toThrow("combination of signerName and labelSelector matched zero ClusterTrustBundles");
    expect(await bundles.trustAnchorsBySigner("example.com/none", undefined, true)).toHaveLength(0);
    await finish();
  });

  test("an apiserver without v1 is read at the first version that serves the bundles", async () => {
    const { api, bundles, finish } = setUp({ "certificates.k8s.io/v1": ["certificatesigningrequests"], "certificates.k8s.io/v1beta1": ["clustertrustbundles"] });
    expect(await bundles.trustAnchorsByName("x", true)).toHaveLength(0);
    expect(api.calls.map((c) => `${c.verb} ${c.path}`)).toEqual([
      "get /apis/certificates.k8s.io/v1",
      "get /apis/certificates.k8s.io/v1beta1",
      "list /apis/certificates.k8s.io/v1beta1/clustertrustbundles",
      "watch /apis/certificates.k8s.io/v1beta1/clustertrustbundles",
    ]);
    await finish();
  });

  test("no version served: projections fail as in static mode, and discovery is not asked again", async () => {
    const { api, bundles, finish } = setUp({});
    await expect(bundles.trustAnchorsByName("x", true)).rejects.toThrow("ClusterTrustBundle projection is not supported in static kubelet mode");
    await expect(bundles.trustAnchorsBySigner("s", {}, true)).rejects.toThrow("ClusterTrustBundle projection is not supported in static kubelet mode");
    expect(api.calls).toHaveLength(3);
    await finish();
  });

  test("a list that has not come back within 10 s: the read fails as not synced, and succeeds once it has", async () => {
    const { api, clock, bundles, finish } = setUp({ "certificates.k8s.io/v1": ["clustertrustbundles"] });
    let release!: () => void;
    const list = api.client.list;
    api.client.list = async (path, o) => (await new Promise<void>((r) => (release = r)), list(path, o));
    const first = bundles.trustAnchorsByName("x", true);
    await clock.whenTimer(10_000);
    await clock.advance(10_000);
    await expect(first).rejects.toThrow("ClusterTrustBundle informer has not yet synced");
    release();
    await settle();
    expect(await bundles.trustAnchorsByName("x", true)).toHaveLength(0);
    await finish();
  });
});
