/**
 * The clusterTrustBundle and podCertificate projected volume sources on a bunlet node of a real
 * cluster (certificates.k8s.io/v1 is served by a 1.37 apiserver with no extra flags): a pod
 * projects bundles by name and by signer with a label selector, sees them normalised, and sees a
 * changed bundle at a resync; a pod with a podCertificate projection makes a PodCertificateRequest
 * that this test answers as the signer would (openssl signs its stub CSR with a test CA), and then
 * runs with the key and the issued chain, the key matching the certificate. The bundles are
 * cluster-scoped, so the file removes them itself.
 */
import { describe, expect, test } from "bun:test";
import { createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { clusterNodeFixture } from "./fixture.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";

const NODE = "bunlet-podcerts";
const SIGNER = "bunlet.test/e2e-podcerts";
const ca = mkdtempSync(join(tmpdir(), "bunlet-podcerts-ca-"));
const fx = clusterNodeFixture({
  name: "podcerts",
  node: NODE,
  waitTimeoutMs: 180_000,
  // A changed bundle reaches the volume at the pod's next resync.
  flags: () => ["--sync-frequency=10s"],
  beforeClose: async (f) => {
    for (const name of bundleNames) await f.cluster.kubectl(["delete", "clustertrustbundle", name, "--ignore-not-found"]);
    rmSync(ca, { recursive: true, force: true });
  },
  beforeRemove: (dir) => {
    const points = readFileSync("/proc/self/mountinfo", "utf8").split("\n").map((l) => l.split(" ")[4] ?? "");
    for (const p of points.filter((p) => p.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)) Bun.spawnSync(["umount", p]);
  },
});
const waitFor = fx.waitFor;
const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(fx.cluster, args);
const apply = (obj: unknown) => kubectlApply(fx.cluster, obj);

function openssl(args: string[]): string {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: ca, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** A self-signed CA certificate (PEM) named cn, its key in <cn>.key. */
function makeCA(cn: string): string {
  openssl(["req", "-x509", "-newkey", "ed25519", "-nodes", "-keyout", `${cn}.key`, "-out", `${cn}.pem`, "-subj", `/CN=${cn}`, "-days", "2", "-addext", "basicConstraints=critical,CA:TRUE"]);
  return readFileSync(join(ca, `${cn}.pem`), "utf8");
}

const signerPrefix = SIGNER.replace("/", ":");
const bundleNames = [`${signerPrefix}:one`, `${signerPrefix}:two`, "bunlet-e2e-plain"];

async function exec(podName: string, script: string): Promise<string> {
  const list = (await fx.cri.runtime.listContainers({})).containers;
  const containerId = list.find((c) => c.labels["io.kubernetes.pod.name"] === podName && c.state === 1)?.id;
  if (!containerId) throw new Error(`no running container of pod ${podName}`);
  const r = await fx.cri.runtime.execSync({ containerId, cmd: ["sh", "-c", script], timeout: 20n });
  if (r.exitCode !== 0) throw new Error(`exec in ${podName} exited ${r.exitCode}: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

const running = async (name: string) => (await kubectlJson(["get", "pod", name])).status?.phase === "Running";
const certsIn = (pem: string): string[] => [...(pem.match(/-----BEGIN CERTIFICATE-----\n[^-]+-----END CERTIFICATE-----\n/g) ?? [])].sort();
const pod = (name: string, sources: unknown[]) =>
  makePod({
    name,
    namespace: fx.namespace,
    container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"], volumeMounts: [{ name: "tls", mountPath: "/tls" }] },
    spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, tolerations: [{ operator: "Exists" }], volumes: [{ name: "tls", projected: { sources } }] } as never,
  });

describe("clusterTrustBundle and podCertificate projections", () => {
  const [a, b, c] = [makeCA("ca-a"), makeCA("ca-b"), makeCA("ca-c")];

  test("bundles by name and by signer and label selector, normalised, and a changed bundle at the next resync", async () => {
    await waitFor("the Node Ready", async () => (await kubectlJson(["get", "node", NODE])).status?.conditions?.some((x: any) => x.type === "Ready" && x.status === "True"));
    const ctb = (name: string, signerName: string | undefined, trustBundle: string, labels: Record<string, string>) =>
      apply({ apiVersion: "certificates.k8s.io/v1", kind: "ClusterTrustBundle", metadata: { name, labels }, spec: { ...(signerName ? { signerName } : {}), trustBundle } });
    // Text around the blocks and the same CA twice: bunlet writes each certificate once, bare.
    await ctb(bundleNames[0], SIGNER, `ca a\n${a}`, { live: "yes" });
    await ctb(bundleNames[1], SIGNER, a + b, { live: "yes" });
    await ctb(bundleNames[2], undefined, c, {});
    await apply(
      pod("anchors", [
        { clusterTrustBundle: { name: bundleNames[2], path: "by-name.pem" } },
        { clusterTrustBundle: { signerName: SIGNER, labelSelector: { matchLabels: { live: "yes" } }, path: "by-signer.pem" } },
        { clusterTrustBundle: { name: "bunlet-e2e-missing", optional: true, path: "optional.pem" } },
      ]),
    );
    await waitFor("the pod Running", () => running("anchors"));
    expect(await exec("anchors", "cat /tls/by-name.pem")).toBe(c);
    const bySigner = await exec("anchors", "cat /tls/by-signer.pem");
    expect(certsIn(bySigner)).toEqual([a, b].sort());
    expect(bySigner).not.toContain("ca a");
    expect(await exec("anchors", "cat /tls/optional.pem; stat -L -c %a /tls/by-name.pem")).toBe("644\n");
    await ctb(bundleNames[1], SIGNER, b + c, { live: "yes" });
    await waitFor("the new anchors in the file", async () => JSON.stringify(certsIn(await exec("anchors", "cat /tls/by-signer.pem"))) === JSON.stringify([a, b, c].sort()), 120_000);
  }, 400_000);

  test("a required bundle that does not exist keeps the pod from starting, with the kubelet's FailedMount", async () => {
    await apply(pod("no-bundle", [{ clusterTrustBundle: { name: "bunlet-e2e-missing", path: "ca.pem" } }]));
    const event = await waitFor("a FailedMount event", async () => {
      const events = await kubectlJson(["get", "events", "--field-selector", "involvedObject.name=no-bundle"]);
      return events.items.find((e: any) => e.reason === "FailedMount");
    });
    expect(event.message).toBe('MountVolume.SetUp failed for volume "tls" : while getting ClusterTrustBundle: clustertrustbundle.certificates.k8s.io "bunlet-e2e-missing" not found');
    expect((await kubectlJson(["get", "pod", "no-bundle"])).status.phase).toBe("Pending");
  }, 200_000);

  test("a podCertificate: the request names the pod, the node and the key; once signed the pod runs with its key and chain", async () => {
    await apply(pod("certified", [{ podCertificate: { signerName: SIGNER, keyType: "ECDSAP256", credentialBundlePath: "bundle.pem", keyPath: "key.pem", certificateChainPath: "chain.pem" } }]));
    const pcr = await waitFor("the PodCertificateRequest", async () => (await kubectlJson(["get", "podcertificaterequests"])).items[0]);
    const [p, node] = [await kubectlJson(["get", "pod", "certified"]), await kubectlJson(["get", "node", NODE])];
    expect(pcr.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Pod", name: "certified", uid: p.metadata.uid }]);
    expect({ ...pcr.spec, stubPKCS10Request: undefined, serviceAccountUID: undefined }).toEqual({
      signerName: SIGNER,
      podName: "certified",
      podUID: p.metadata.uid,
      serviceAccountName: "default",
      nodeName: NODE,
      nodeUID: node.metadata.uid,
      maxExpirationSeconds: 86400,
    });
    // The signer: the stub CSR signed by a CA, the status set with the leaf's own times.
    writeFileSync(join(ca, "req.der"), Buffer.from(pcr.spec.stubPKCS10Request, "base64"));
    openssl(["x509", "-req", "-inform", "DER", "-in", "req.der", "-CA", "ca-a.pem", "-CAkey", "ca-a.key", "-days", "1", "-out", "leaf.pem"]);
    const leaf = readFileSync(join(ca, "leaf.pem"), "utf8");
    const x509 = new X509Certificate(leaf);
    const [notBefore, notAfter] = [new Date(x509.validFrom), new Date(x509.validTo)];
    const iso = (d: Date) => d.toISOString().replace(/\.\d+Z$/, "Z");
    const status = {
      conditions: [{ type: "Issued", status: "True", reason: "Issued", message: "signed by the e2e test", lastTransitionTime: iso(new Date()) }],
      certificateChain: `${leaf}${a}`,
      notBefore: iso(notBefore),
      beginRefreshAt: iso(new Date(notBefore.getTime() + 12 * 3600_000)),
      notAfter: iso(notAfter),
    };
    const patched = await fx.cluster.kubectl(["patch", "podcertificaterequest", pcr.metadata.name, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]);
    expect(patched.stderr).toBe("");
    await waitFor("the pod Running", () => running("certified"), 120_000);
    const key = await exec("certified", "cat /tls/key.pem");
    expect(await exec("certified", "cat /tls/chain.pem")).toBe(leaf + a);
    expect(await exec("certified", "cat /tls/bundle.pem")).toBe(key + leaf + a);
    expect(key).toStartWith("-----BEGIN PRIVATE KEY-----\n");
    expect(createPublicKey(createPrivateKey(key)).export({ format: "jwk" })).toEqual(x509.publicKey.export({ format: "jwk" }));
    // The key is the pod's alone: not in bunlet's log.
    const body = key.split("\n")[1];
    expect(JSON.stringify(fx.bunlet?.lines ?? [])).not.toContain(body);
  }, 300_000);
});
