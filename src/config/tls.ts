/**
 * --tls-min-version and --tls-cipher-suites (tlsMinVersion, tlsCipherSuites), in the kubelet's
 * Go names (component-base cli/flag TLSVersion, TLSCipherSuites: crypto/tls CipherSuites() and
 * InsecureCipherSuites(), plus two legacy CHACHA20 names), turned into what node:tls takes: a
 * minimum version and an OpenSSL cipher list. A name Go does not know is the kubelet's error;
 * a Go suite Bun's TLS library (BoringSSL) cannot offer is refused at start too, rather than
 * silently offering something else. TLS 1.3 suites are accepted and, as in Go, not configurable.
 */
import { ValueError } from "./values.ts";

export type NodeTlsVersion = "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";

const versions: Record<string, NodeTlsVersion> = {
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
};

/** Go name → OpenSSL name; "tls13" = a TLS 1.3 suite (not configurable); null = BoringSSL lacks it. */
const suites: Record<string, string | null> = {
  TLS_AES_128_GCM_SHA256: "tls13",
  TLS_AES_256_GCM_SHA384: "tls13",
  TLS_CHACHA20_POLY1305_SHA256: "tls13",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  // InsecureCipherSuites().
  TLS_RSA_WITH_RC4_128_SHA: null,
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: null,
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: null,
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: null,
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: null,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
};

const insecure = new Set([
  "TLS_RSA_WITH_RC4_128_SHA",
  "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
  "TLS_RSA_WITH_AES_128_CBC_SHA",
  "TLS_RSA_WITH_AES_256_CBC_SHA",
  "TLS_RSA_WITH_AES_128_CBC_SHA256",
  "TLS_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
  "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
  "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
  "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
]);

/**
 * Go's default TLS 1.2 suites for a server (crypto/tls defaultCipherSuites: ECDHE with AES-GCM,
 * ChaCha20 or AES-CBC-SHA; no RSA key exchange, no 3DES), what the kubelet offers when
 * tlsCipherSuites is empty, rather than OpenSSL's broader default.
 */
const goDefaultCiphers = [
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
  "ECDHE-ECDSA-AES128-SHA",
  "ECDHE-RSA-AES128-SHA",
  "ECDHE-ECDSA-AES256-SHA",
  "ECDHE-RSA-AES256-SHA",
].join(":");

/** A Go TLS version name; "" is the kubelet's default, VersionTLS12. */
export function tlsMinVersion(name: string): string {
  if (name !== "" && !Object.hasOwn(versions, name)) throw new ValueError(`unknown tls version ${JSON.stringify(name)}`);
  return name;
}

/** Go cipher suite names, each known to Go and offered by bunlet's TLS library. */
export function tlsCipherSuites(names: readonly string[]): string[] {
  for (const name of names) {
    if (!Object.hasOwn(suites, name)) throw new ValueError(`Cipher suite ${name} not supported or doesn't exist`);
    if (suites[name] === null) throw new ValueError(`Cipher suite ${name} is not available in bunlet's TLS library (BoringSSL); choose another`);
  }
  return [...names];
}

/** The node:tls settings for validated names, and the kubelet's start-up warnings about them. */
export function tlsPolicy(
  minVersion: string,
  cipherSuites: readonly string[],
): { minVersion: NodeTlsVersion; ciphers: string; warnings: { msg: string; fields: Record<string, string> }[] } {
  const min = versions[minVersion === "" ? "VersionTLS12" : minVersion];
  const warnings: { msg: string; fields: Record<string, string> }[] = cipherSuites.filter((n) => insecure.has(n)).map((cipher) => ({ msg: "Use of insecure cipher detected.", fields: { cipher } }));
  if (min === "TLSv1.3" && cipherSuites.length > 0) warnings.push({ msg: "Warning: TLS 1.3 cipher suites are not configurable, ignoring --tls-cipher-suites", fields: {} });
  const openssl = [...new Set(cipherSuites.map((n) => suites[n]).filter((s): s is string => s !== null && s !== "tls13"))];
  // Only TLS 1.3 names given: Go then has no TLS 1.2 suite to agree on, so only TLS 1.3 connects.
  if (cipherSuites.length > 0 && openssl.length === 0) return { minVersion: "TLSv1.3", ciphers: goDefaultCiphers, warnings };
  return { minVersion: min, ciphers: openssl.length > 0 ? openssl.join(":") : goDefaultCiphers, warnings };
}
