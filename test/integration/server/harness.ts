// The kubelet API and the read-only port in this process, on loopback ephemeral ports, with
// certificates made by openssl (a client CA, a foreign CA, a client of each), a pod table and
// a CRI stub whose streaming URLs point at a server the test runs. Timeouts are shortened by
// the test; the defaults are checked as numbers in connections.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import type { CriClient } from "../../../src/cri/index.ts";
import { createLogger, realClock, type Fields } from "../../../src/lib/index.ts";
import { alwaysAllow, createAuthenticator, listenKubeletApi } from "../../../src/server/index.ts";
import type { ServerHandle } from "../../../src/server/serve.ts";
import type { ConnectionLimits } from "../../../src/server/connections.ts";
import type { TlsPolicy } from "../../../src/server/kubelet-api.ts";
import { makePod } from "../../fixtures/pods.ts";

function openssl(args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString()}`);
}

export interface Pki {
  dir: string;
  serverCert: string;
  serverKey: string;
  ca: string;
  /** A client the CA signed (CN=admin). */
  client: { cert: string; key: string };
  /** A client a foreign CA signed (CN=admin too). */
  foreign: { cert: string; key: string };
  cleanup(): void;
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), "bunlet-pki-"));
  const p = (n: string) => join(dir, n);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...ec, "-days", "1", "-subj", "/CN=server", "-keyout", p("server.key"), "-out", p("server.crt")]);
  for (const ca of ["ca", "foreign-ca"]) {
    openssl(["req", "-x509", ...ec, "-days", "1", "-subj", `/CN=${ca}`, "-keyout", p(`${ca}.key`), "-out", p(`${ca}.crt`)]);
    const client = ca === "ca" ? "client" : "foreign";
    openssl(["req", "-new", ...ec, "-subj", "/O=system:masters/CN=admin", "-keyout", p(`${client}.key`), "-out", p(`${client}.csr`)]);
    writeFileSync(p("ext"), "extendedKeyUsage=clientAuth\n");
    openssl(["x509", "-req", "-in", p(`${client}.csr`), "-CA", p(`${ca}.crt`), "-CAkey", p(`${ca}.key`), "-CAcreateserial", "-days", "1", "-extfile", p("ext"), "-out", p(`${client}.crt`)]);
  }
  return {
    dir,
    serverCert: p("server.crt"),
    serverKey: p("server.key"),
    ca: p("ca.crt"),
    client: { cert: p("client.crt"), key: p("client.key") },
    foreign: { cert: p("foreign.crt"), key: p("foreign.key") },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const runningPod = makePod({
  name: "web",
  namespace: "default",
  metadata: { uid: "uid-web" },
  container: { name: "main", image: "busybox" },
  status: { phase: "Running", containerStatuses: [{ name: "main", containerID: "containerd://c1", state: { running: {} } }] as NonNullable<Pod["status"]>["containerStatuses"] },
});

export interface KubeletApiUnderTest {
  handle: ServerHandle;
  port: number;
  lines: Fields[];
  /** Every line the logger wrote, as written (to look for stacks). */
  raw: string[];
}

export async function startKubeletApi(
  pki: Pki,
  opts: { limits?: ConnectionLimits; tls?: TlsPolicy; anonymous?: boolean; streamingUrl?: string; logPath?: string } = {},
): Promise<KubeletApiUnderTest> {
  const lines: Fields[] = [];
  const raw: string[] = [];
  const log = createLogger({ format: "json", verbosity: 4, write: (line) => void (raw.push(line), lines.push(JSON.parse(line))) });
  const cri = {
    runtime: {
      exec: async () => ({ url: opts.streamingUrl ?? "http://127.0.0.1:1/exec/x" }),
      attach: async () => ({ url: opts.streamingUrl ?? "http://127.0.0.1:1/attach/x" }),
      containerStatus: async () => ({ status: { logPath: opts.logPath ?? "", state: 1 } }),
    },
  } as unknown as CriClient;
  const handle = await listenKubeletApi({
    address: "127.0.0.1",
    port: 0,
    randomPort: true,
    cert: { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey), certFile: pki.serverCert, keyFile: pki.serverKey },
    clientCA: readFileSync(pki.ca),
    nodeName: "node1",
    authenticate: createAuthenticator({ x509: true, anonymous: opts.anonymous ?? false, clock: realClock, log }),
    authorize: alwaysAllow,
    routes: { "/healthz": () => new Response("ok") },
    pods: { pod: (ns, name) => (ns === "default" && name === "web" ? runningPod : undefined), cri, clock: realClock, log, followPollMs: 20 },
    cri,
    tls: opts.tls ?? { minVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384" },
    limits: opts.limits,
    log,
  });
  return { handle, port: handle.port, lines, raw };
}

/**
 * A client that opens a connection (TLS or not), sends `send` once connected, reads and drops
 * what comes, and resolves with how long the server kept the connection open (or `giveUpMs`).
 */
export function heldFor(port: number, opts: { tls: boolean; send?: string; giveUpMs: number; cert?: { cert: string; key: string } }): Promise<{ ms: number; closed: boolean; received: string }> {
  const { connect: netConnect } = require("node:net") as typeof import("node:net");
  const { connect: tlsConnect } = require("node:tls") as typeof import("node:tls");
  return new Promise((resolve) => {
    const t0 = performance.now();
    let received = "";
    const onReady = () => opts.send !== undefined && socket.write(opts.send);
    const socket = opts.tls
      ? tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false, ...(opts.cert && { cert: readFileSync(opts.cert.cert), key: readFileSync(opts.cert.key) }) }, onReady)
      : netConnect({ port, host: "127.0.0.1" }, onReady);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ms: performance.now() - t0, closed: false, received });
    }, opts.giveUpMs);
    socket.on("data", (d) => void (received += d.toString()));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - t0, closed: true, received });
    });
  });
}
