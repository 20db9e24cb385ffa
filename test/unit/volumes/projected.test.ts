// projected collectData's clusterTrustBundle and podCertificate sources: what each writes, at
// which paths and modes, and the kubelet's errors (joined when several sources fail).
import { describe, expect, test } from "bun:test";
import type { Pod, VolumeProjection } from "../../../src/api/index.ts";
import type { Payload } from "../../../src/volumes/atomic-writer.ts";
import { projectedPayload, type ProjectedSources } from "../../../src/volumes/projected.ts";
import { makePod } from "../../fixtures/pods.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const show = (p: Payload) => Object.fromEntries([...p].map(([k, v]) => [k, `${dec.decode(v.data)} ${v.mode.toString(8)}${v.fsUser !== undefined ? ` uid=${v.fsUser}` : ""}`]));

function sources(calls: string[]): ProjectedSources {
  const fail = () => {
    throw new Error("not read");
  };
  return {
    configMap: fail,
    secret: fail,
    tokens: fail,
    node: { nodeName: "n", hostIPs: [], cpuCapacityMilli: 1000, memoryCapacity: 1 },
    trustBundles: () => ({
      async trustAnchorsByName(name, allowMissing) {
        calls.push(`name ${name} ${allowMissing}`);
        if (name === "missing") throw new Error('while getting ClusterTrustBundle: clustertrustbundle.certificates.k8s.io "missing" not found');
        return enc.encode(`anchors of ${name}`);
      },
      async trustAnchorsBySigner(signer, selector, allowMissing) {
        calls.push(`signer ${signer} ${JSON.stringify(selector)} ${allowMissing}`);
        return enc.encode(`anchors of ${signer}`);
      },
    }),
    podCertificates: () => ({
      async credentialBundle(_pod, volume, index) {
        calls.push(`cert ${volume} ${index}`);
        if (volume === "pending") throw new Error("credential bundle is not issued yet");
        return { privateKey: enc.encode("KEY\n"), certificateChain: enc.encode("CHAIN\n") };
      },
      forgetPod() {},
    }),
  };
}

function podWith(volume: string, projections: VolumeProjection[], spec: Partial<Pod["spec"]> = {}): Pod {
  return makePod({ name: "p", namespace: "ns", spec: { volumes: [{ name: volume, projected: { sources: projections, defaultMode: 0o644 } }], ...spec } });
}

describe("clusterTrustBundle and podCertificate sources", () => {
  test("anchors by name and by signer (optional passed on), the credential bundle, key and chain at their paths", async () => {
    const calls: string[] = [];
    const pod = podWith("tls", [
      { clusterTrustBundle: { name: "a.b", path: "by-name.pem", optional: true } },
      { clusterTrustBundle: { signerName: "example.com/s", labelSelector: {}, path: "by-signer.pem" } },
      { podCertificate: { signerName: "example.com/s", keyType: "ED25519", credentialBundlePath: "bundle.pem", keyPath: "key.pem", certificateChainPath: "chain.pem" } },
    ]);
    expect(show(await projectedPayload(sources(calls), pod, pod.spec.volumes![0]))).toEqual({
      "by-name.pem": "anchors of a.b 644",
      "by-signer.pem": "anchors of example.com/s 644",
      "bundle.pem": "KEY\nCHAIN\n 644",
      "key.pem": "KEY\n 644",
      "chain.pem": "CHAIN\n 644",
    });
    expect(calls).toEqual(["name a.b true", "signer example.com/s {} false", "cert tls 2"]);
  });

  test("with the pods' shared runAsUser or an fsGroup, the files are 0600 (owned by that user)", async () => {
    const projections: VolumeProjection[] = [{ clusterTrustBundle: { name: "a", path: "ca.pem" } }, { podCertificate: { signerName: "example.com/s", keyType: "ED25519", keyPath: "key.pem" } }];
    const owned = podWith("tls", projections, { securityContext: { runAsUser: 1000 } });
    expect(show(await projectedPayload(sources([]), owned, owned.spec.volumes![0]))).toEqual({ "ca.pem": "anchors of a 600 uid=1000", "key.pem": "KEY\n 600 uid=1000" });
    const grouped = podWith("tls", projections, { securityContext: { fsGroup: 2000 } });
    expect(show(await projectedPayload(sources([]), grouped, grouped.spec.volumes![0]))).toEqual({ "ca.pem": "anchors of a 600", "key.pem": "KEY\n 600" });
  });

  test("each failing source is an error; two or more are joined as the kubelet's aggregate", async () => {
    const one = podWith("tls", [{ clusterTrustBundle: { path: "x.pem" } }]);
    await expect(projectedPayload(sources([]), one, one.spec.volumes![0])).rejects.toThrow(/^ClusterTrustBundle projection requires either name or signerName to be set$/);
    const two = podWith("pending", [{ clusterTrustBundle: { name: "missing", path: "ca.pem" } }, { podCertificate: { signerName: "example.com/s", keyType: "ED25519", keyPath: "k" } }]);
    await expect(projectedPayload(sources([]), two, two.spec.volumes![0])).rejects.toThrow(
      '[while getting ClusterTrustBundle: clustertrustbundle.certificates.k8s.io "missing" not found, credential bundle is not issued yet]',
    );
  });
});
