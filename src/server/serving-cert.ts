/**
 * The kubelet API's serving certificate: --tls-cert-file/--tls-private-key-file when given, else
 * a self-signed pair kept as <cert-dir>/kubelet.crt and kubelet.key, made once (as the kubelet
 * makes it when it has none) for the node's name and addresses and reused on later starts. The
 * pair is made with the openssl command (node:crypto makes keys but not certificates).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import type { Logger } from "../lib/index.ts";

export interface ServingCert {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  keyFile: string;
}

class ServingCertError extends Error {
  override readonly name = "ServingCertError";
}

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ServingCertError(`cannot read the kubelet API's ${what} ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
}

export function loadServingCert(opts: { certFile: string; keyFile: string; certDir: string; nodeName: string; addresses: string[]; log: Logger }): ServingCert {
  if (opts.certFile !== "") {
    return { cert: read(opts.certFile, "certificate (--tls-cert-file)"), key: read(opts.keyFile, "key (--tls-private-key-file)"), certFile: opts.certFile, keyFile: opts.keyFile };
  }
  const certFile = join(opts.certDir, "kubelet.crt");
  const keyFile = join(opts.certDir, "kubelet.key");
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(opts.certDir, { recursive: true, mode: 0o700 });
    const names = [opts.nodeName, "localhost"];
    const ips = [...new Set(["127.0.0.1", ...opts.addresses.filter((a) => isIP(a) !== 0)])];
    const san = [...names.filter((n) => isIP(n) === 0).map((n) => `DNS:${n}`), ...ips.map((ip) => `IP:${ip}`)].join(",");
    const r = spawnSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "365",
        "-subj", `/CN=${opts.nodeName}@${Math.floor(Date.now() / 1000)}`, "-addext", `subjectAltName=${san}`,
        "-addext", "extendedKeyUsage=serverAuth", "-keyout", keyFile, "-out", certFile],
      { encoding: "utf8" },
    );
    if (r.error || r.status !== 0) {
      throw new ServingCertError(
        `cannot make a self-signed serving certificate in ${opts.certDir} with openssl (${r.error?.message ?? r.stderr.trim().split("\n").pop()}); give --tls-cert-file and --tls-private-key-file`,
      );
    }
    opts.log.info("Generated a self-signed serving certificate for the kubelet API", { cert: certFile, san });
  }
  return { cert: read(certFile, "certificate"), key: read(keyFile, "key"), certFile, keyFile };
}
