/**
 * generateKeyAndProof and pemEncodeKey (pkg/kubelet/podcertificate): a key pair of the projection's
 * keyType made on the node, and a stub PKCS#10 request (empty subject, no attributes) signed with
 * it, as x509.CreateCertificateRequest writes one from an empty template: SHA-256 with RSA
 * (PKCS #1 v1.5), ECDSA with SHA-256, SHA-384 or SHA-512 by curve, or pure Ed25519. The apiserver
 * checks that signature as the request's proof of possession. The private key leaves this module
 * only as the PKCS#8 "PRIVATE KEY" PEM the pod's volume gets; keys come from the OS's CSPRNG.
 */
import { createPublicKey, generateKeyPair, sign, type KeyObject } from "node:crypto";
import { bitString, derNull, integerZero, oid, sequence, tlv } from "./der.ts";
import { encodePem } from "./pem.ts";

export interface KeyAndProof {
  /** PKCS#8, PEM ("PRIVATE KEY"), as the volume gets it. */
  keyPEM: Uint8Array;
  /** DER, for spec.stubPKCS10Request. */
  stubPKCS10Request: Uint8Array;
}

export type GenerateKeyAndProof = (keyType: string) => Promise<KeyAndProof>;

interface KeySpec {
  /** How generateKeyPair makes it, and the name in the kubelet's error. */
  make: () => Promise<KeyObject>;
  what: string;
  /** The hash of the request's signature (undefined: Ed25519 signs the message itself). */
  hash?: "sha256" | "sha384" | "sha512";
  /** The signatureAlgorithm's OID and whether it carries NULL parameters (RSA only). */
  sigOid: string;
  nullParams: boolean;
}

type KeyPairCallback = (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) => void;

/** The private key of a pair generateKeyPair makes off the JS thread. */
function privateKey(generate: (done: KeyPairCallback) => void): Promise<KeyObject> {
  return new Promise((resolve, reject) => generate((err, _pub, priv) => (err ? reject(err) : resolve(priv))));
}

const ECDSA_SHA256 = "1.2.840.10045.4.3.2";
const keySpecs: Record<string, KeySpec> = {
  RSA3072: { make: () => privateKey((done) => generateKeyPair("rsa", { modulusLength: 3072 }, done)), what: "RSA 3072 key", hash: "sha256", sigOid: "1.2.840.113549.1.1.11", nullParams: true },
  RSA4096: { make: () => privateKey((done) => generateKeyPair("rsa", { modulusLength: 4096 }, done)), what: "RSA 4096 key", hash: "sha256", sigOid: "1.2.840.113549.1.1.11", nullParams: true },
  ECDSAP256: { make: () => privateKey((done) => generateKeyPair("ec", { namedCurve: "P-256" }, done)), what: "ECDSA P256 key", hash: "sha256", sigOid: ECDSA_SHA256, nullParams: false },
  ECDSAP384: { make: () => privateKey((done) => generateKeyPair("ec", { namedCurve: "P-384" }, done)), what: "ECDSA P384 key", hash: "sha384", sigOid: "1.2.840.10045.4.3.3", nullParams: false },
  ECDSAP521: { make: () => privateKey((done) => generateKeyPair("ec", { namedCurve: "P-521" }, done)), what: "ECDSA P521 key", hash: "sha512", sigOid: "1.2.840.10045.4.3.4", nullParams: false },
  ED25519: { make: () => privateKey((done) => generateKeyPair("ed25519", {}, done)), what: "Ed25519 key", sigOid: "1.3.101.112", nullParams: false },
};

/** The CertificationRequest of RFC 2986 with an empty subject and no attributes, signed by key. */
function stubPKCS10Request(key: KeyObject, spec: Pick<KeySpec, "hash" | "sigOid" | "nullParams">): Uint8Array {
  const spki = new Uint8Array(createPublicKey(key).export({ type: "spki", format: "der" }));
  const emptyName = sequence();
  const noAttributes = tlv(0xa0);
  const info = sequence(integerZero(), emptyName, spki, noAttributes);
  const signature = sign(spec.hash ?? null, info, key);
  const algorithm = spec.nullParams ? sequence(oid(spec.sigOid), derNull()) : sequence(oid(spec.sigOid));
  return sequence(info, algorithm, bitString(new Uint8Array(signature)));
}

/** generateKeyAndProof then pemEncodeKey, failing with the kubelet's words. */
export const generateKeyAndProof: GenerateKeyAndProof = async (keyType) => {
  const spec = keySpecs[keyType];
  if (!spec) throw new Error(`unknown key type ${JSON.stringify(keyType)}`);
  let key: KeyObject;
  try {
    key = await spec.make();
  } catch (err) {
    throw new Error(`while generating ${spec.what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const stub = stubPKCS10Request(key, spec);
  const pkcs8 = new Uint8Array(key.export({ type: "pkcs8", format: "der" }));
  return { keyPEM: new TextEncoder().encode(encodePem("PRIVATE KEY", pkcs8)), stubPKCS10Request: stub };
};
