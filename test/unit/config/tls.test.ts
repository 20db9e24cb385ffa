import { describe, expect, test } from "bun:test";
import { ConfigError, parseArgs, tlsPolicy } from "../../../src/config/index.ts";

const env = { hostname: () => "node1", readFile: (p: string) => files[p] ?? "" };
let files: Record<string, string> = {};

function run(...argv: string[]) {
  const r = parseArgs(argv, env);
  if (r.kind !== "run") throw new Error(`expected run, got ${r.kind}`);
  return r;
}
function failure(...argv: string[]): string {
  try {
    parseArgs(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`expected ${argv.join(" ")} to be rejected`);
}

describe("--tls-min-version and --tls-cipher-suites (tlsMinVersion, tlsCipherSuites)", () => {
  test("Go names become node:tls settings; the default is TLS 1.2 with Go's default ECDHE suites", () => {
    expect(tlsPolicy("", [])).toEqual({
      minVersion: "TLSv1.2",
      ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA",
      warnings: [],
    });
    const c = run("--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305").config;
    expect(c.tlsMinVersion).toBe("VersionTLS13");
    expect(tlsPolicy(c.tlsMinVersion, c.tlsCipherSuites)).toMatchObject({ minVersion: "TLSv1.3", ciphers: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305" });
  });

  test("an unknown version or suite is a startup error naming the flag, in the kubelet's words", () => {
    expect(failure("--tls-min-version=VersionTLS14")).toBe('bunlet: invalid value "VersionTLS14" for flag --tls-min-version: unknown tls version "VersionTLS14"');
    expect(failure("--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,BOGUS")).toBe(
      `bunlet: invalid value "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,BOGUS" for flag --tls-cipher-suites: Cipher suite BOGUS not supported or doesn't exist`,
    );
    expect(failure("--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA")).toContain("Cipher suite TLS_RSA_WITH_RC4_128_SHA is not available in bunlet's TLS library");
  });

  test("the config file's fields are read and checked the same way", () => {
    const header = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
    files = { "/c.yaml": `${header}tlsMinVersion: VersionTLS13\ntlsCipherSuites: [TLS_AES_128_GCM_SHA256]\nmaxOpenFiles: 5000\n` };
    const r = run("--config=/c.yaml");
    expect(r.config).toMatchObject({ tlsMinVersion: "VersionTLS13", tlsCipherSuites: ["TLS_AES_128_GCM_SHA256"], maxOpenFiles: 5000 });
    // They are acted on now: not in the line of settings bunlet ignores.
    expect(JSON.stringify(r.notices)).not.toContain("tlsMinVersion");
    expect(r.notices).toContainEqual({ level: "warn", msg: "Warning: TLS 1.3 cipher suites are not configurable, ignoring --tls-cipher-suites", fields: {} });
    files = { "/c.yaml": `${header}tlsMinVersion: TLS1.3\n` };
    expect(failure("--config=/c.yaml")).toContain('unknown tls version "TLS1.3"');
  });

  test("insecure suites are logged as the kubelet logs them; only TLS 1.3 names leave TLS 1.3 only", () => {
    const r = run("--tls-cipher-suites=TLS_RSA_WITH_AES_128_CBC_SHA");
    expect(r.notices).toContainEqual({ level: "warn", msg: "Use of insecure cipher detected.", fields: { cipher: "TLS_RSA_WITH_AES_128_CBC_SHA" } });
    expect(tlsPolicy("VersionTLS12", ["TLS_AES_128_GCM_SHA256"]).minVersion).toBe("TLSv1.3");
  });
});

describe("--max-open-files (maxOpenFiles)", () => {
  test("default 1000000 as the kubelet's; 0 is the default; negative is refused", () => {
    expect(run().config.maxOpenFiles).toBe(1_000_000);
    expect(run("--max-open-files=4096").config.maxOpenFiles).toBe(4096);
    expect(run("--max-open-files=0").config.maxOpenFiles).toBe(1_000_000);
    expect(failure("--max-open-files=-1")).toContain("maxOpenFiles (--max-open-files) -1 must not be a negative number");
  });
});
