// generateKeyAndProof: for every key type the kubelet supports, a PKCS#8 key and a stub PKCS#10
// request whose signature (the proof of possession the apiserver checks) verifies with the key's
// public half, signed with the algorithm x509.CreateCertificateRequest picks for that key.
import { describe, expect, test } from "bun:test";
import { createPrivateKey, createPublicKey, verify } from "node:crypto";
import { generateKeyAndProof } from "../../../src/podcerts/keys.ts";

/** One DER element: its tag, its whole encoding and its contents. */
function element(der: Uint8Array, at = 0): { tag: number; whole: Uint8Array; body: Uint8Array; end: number } {
  let len = der[at + 1];
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i];
    start += n;
  }
  return { tag: der[at], whole: der.subarray(at, start + len), body: der.subarray(start, start + len), end: start + len };
}

function children(der: Uint8Array): ReturnType<typeof element>[] {
  const out: ReturnType<typeof element>[] = [];
  for (let at = 0; at < der.length; at = out[out.length - 1].end) out.push(element(der, at));
  return out;
}

const oidHex: Record<string, string> = {
  RSA3072: "06092a864886f70d01010b0500",
  RSA4096: "06092a864886f70d01010b0500",
  ECDSAP256: "06082a8648ce3d040302",
  ECDSAP384: "06082a8648ce3d040303",
  ECDSAP521: "06082a8648ce3d040304",
  ED25519: "06032b6570",
};
const hashOf: Record<string, string | null> = { RSA3072: "sha256", RSA4096: "sha256", ECDSAP256: "sha256", ECDSAP384: "sha384", ECDSAP521: "sha512", ED25519: null };

describe("generateKeyAndProof", () => {
  for (const keyType of Object.keys(oidHex)) {
    test(`${keyType}: an empty request signed by the key`, async () => {
      const { keyPEM, stubPKCS10Request } = await generateKeyAndProof(keyType);
      const pem = new TextDecoder().decode(keyPEM);
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END PRIVATE KEY-----\n$/);
      const [info, algorithm, signature] = children(element(stubPKCS10Request).body);
      const [version, subject, spki, attributes] = children(info.body);
      expect([Buffer.from(version.whole).toString("hex"), Buffer.from(subject.whole).toString("hex"), Buffer.from(attributes.whole).toString("hex")]).toEqual(["020100", "3000", "a000"]);
      expect(Buffer.from(algorithm.body).toString("hex")).toBe(oidHex[keyType]);
      const publicKey = createPublicKey({ key: Buffer.from(spki.whole), format: "der", type: "spki" });
      expect(publicKey.export({ format: "jwk" })).toEqual(createPublicKey(createPrivateKey(pem)).export({ format: "jwk" }));
      expect(signature.body[0]).toBe(0);
      expect(verify(hashOf[keyType], info.whole, publicKey, signature.body.subarray(1))).toBe(true);
    });
  }
});
