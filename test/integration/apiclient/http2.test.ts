/**
 * The API client over HTTP/2 (the heartbeat client's transport) against a real TLS HTTP/2 server
 * that asks for a client certificate: requests go as HTTP/2 streams on one connection with the
 * kubeconfig's certificate, answers and errors read as over HTTP/1.1, and a stream that gets no
 * answer within the deadline fails with ClientTimeout and drops the connection, so the next
 * request dials a new one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { createHttp2Transport } from "../../../src/apiclient/http2.ts";
import { ApiError, createApiClient, type ApiClientConfig } from "../../../src/apiclient/index.ts";

let dir = "";
let server: Http2SecureServer;
let port = 0;
const sessions: ServerHttp2Session[] = [];
const seen: { method: string; path: string; user: string; body: string; contentType: string }[] = [];

function openssl(args: string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString()}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bunlet-h2-"));
  const p = (f: string) => join(dir, f);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...ec, "-days", "1", "-subj", "/CN=ca", "-keyout", p("ca.key"), "-out", p("ca.crt")]);
  writeFileSync(p("server.ext"), "subjectAltName=IP:127.0.0.1\n");
  openssl(["req", "-new", ...ec, "-subj", "/CN=apiserver", "-keyout", p("server.key"), "-out", p("server.csr")]);
  openssl(["x509", "-req", "-in", p("server.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial", "-days", "1", "-extfile", p("server.ext"), "-out", p("server.crt")]);
  openssl(["req", "-new", ...ec, "-subj", "/O=system:nodes/CN=system:node:n1", "-keyout", p("node.key"), "-out", p("node.csr")]);
  openssl(["x509", "-req", "-in", p("node.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial", "-days", "1", "-out", p("node.crt")]);
  server = createSecureServer({ key: readFileSync(p("server.key")), cert: readFileSync(p("server.crt")), ca: readFileSync(p("ca.crt")), requestCert: true, rejectUnauthorized: true });
  server.on("session", (s) => sessions.push(s));
  server.on("stream", (stream: ServerHttp2Stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const path = String(headers[":path"]);
      const cert = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate();
      seen.push({ method: String(headers[":method"]), path, user: String(cert?.subject?.CN ?? ""), body: Buffer.concat(chunks).toString(), contentType: String(headers["content-type"] ?? "") });
      if (path.startsWith("/silent")) return; // accepts, never answers
      if (path.startsWith("/api/v1/pods")) {
        // A list far past HTTP/2's 64 KiB initial window: the client must keep the window open.
        const items = Array.from({ length: 2000 }, (_, i) => ({ metadata: { name: `p${i}`, annotations: { pad: "x".repeat(2000) } } }));
        stream.respond({ ":status": 200, "content-type": "application/json" });
        return stream.end(JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "9" }, items }));
      }
      if (path === "/api/v1/nodes/n1") return stream.respond({ ":status": 200, "content-type": "application/json" }), stream.end(JSON.stringify({ kind: "Node", metadata: { name: "n1", resourceVersion: "7" } }));
      if (path.startsWith("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1")) {
        stream.respond({ ":status": 200, "content-type": "application/json" });
        return stream.end(JSON.stringify({ kind: "Lease", metadata: { name: "n1", resourceVersion: "8" } }));
      }
      stream.respond({ ":status": 404, "content-type": "application/json" });
      stream.end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: `${path} not found` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  for (const s of sessions) s.destroy();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(): ApiClientConfig {
  return {
    server: `https://127.0.0.1:${port}`,
    ca: { kind: "inline", pem: readFileSync(join(dir, "ca.crt"), "utf8") },
    clientCertificate: { kind: "inline", pem: readFileSync(join(dir, "node.crt"), "utf8") },
    clientKey: { kind: "inline", pem: readFileSync(join(dir, "node.key"), "utf8") },
    insecureSkipTLSVerify: false,
    credentials: { kind: "none" },
    source: { file: "test", context: "c", cluster: "c", user: "u" },
  };
}

describe("the API client over HTTP/2", () => {
  test("requests are streams of one connection, with the client certificate; answers and errors read as over HTTP/1.1", async () => {
    const stop = new AbortController();
    const client = createApiClient(config(), { qps: -1, http2: true, signal: stop.signal });
    const before = sessions.length;
    seen.length = 0;
    const node = await client.get<{ metadata: { resourceVersion: string } }>("/api/v1/nodes/n1");
    expect(node.metadata.resourceVersion).toBe("7");
    const rv = await client.patchResourceVersion("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", { spec: { renewTime: "2026-01-01T00:00:00.000000Z" } }, "merge");
    expect(rv).toBe("8");
    const err = await client.get("/api/v1/nodes/n2").then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).reason).toBe("NotFound");
    expect((err as ApiError).message).toBe("GET /api/v1/nodes/n2: 404 NotFound: /api/v1/nodes/n2 not found");
    expect(sessions.length - before).toBe(1);
    expect(seen.map((s) => [s.method, s.path.split("?")[0], s.user])).toEqual([
      ["GET", "/api/v1/nodes/n1", "system:node:n1"],
      ["PATCH", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", "system:node:n1"],
      ["GET", "/api/v1/nodes/n2", "system:node:n1"],
    ]);
    expect(seen[1]).toMatchObject({ contentType: "application/merge-patch+json", body: '{"spec":{"renewTime":"2026-01-01T00:00:00.000000Z"}}' });
    stop.abort();
  });

  test("a stream with no answer by the deadline fails with ClientTimeout and the next request dials a new connection", async () => {
    const stop = new AbortController();
    const client = createApiClient(config(), { qps: -1, http2: true, timeoutMs: 300, signal: stop.signal });
    await client.get("/api/v1/nodes/n1");
    const before = sessions.length;
    const err = await client.get("/silent").then(() => undefined, (e: unknown) => e);
    expect((err as ApiError).reason).toBe("ClientTimeout");
    expect((err as ApiError).message).toBe(`GET /silent: no answer from https://127.0.0.1:${port} within 0.3 s; the request was abandoned`);
    await client.get("/api/v1/nodes/n1");
    expect(sessions.length - before).toBe(1);
    stop.abort();
  });

  test("the transport keeps its connection while the TLS object is the same; new TLS material dials a new one", async () => {
    const transport = createHttp2Transport();
    const read = (f: string) => readFileSync(join(dir, f), "utf8");
    const tls = { ca: read("ca.crt"), cert: read("node.crt"), key: read("node.key") };
    const url = new URL(`https://127.0.0.1:${port}/api/v1/nodes/n1`);
    const get = async (t: typeof tls) => (await transport.request(url, { method: "GET", headers: {}, signal: AbortSignal.timeout(10_000), tls: t })).json();
    const before = sessions.length;
    await get(tls);
    await get(tls);
    expect(sessions.length - before).toBe(1);
    // A rotated certificate comes as a new object from the credentials (credentials.ts).
    await get({ ...tls });
    expect(sessions.length - before).toBe(2);
    transport.close();
  });

  test("a refused connection fails at once with ConnectionFailed, not at the deadline", async () => {
    const client = createApiClient({ ...config(), server: "https://127.0.0.1:1" }, { qps: -1, http2: true, timeoutMs: 30_000 });
    const started = performance.now();
    const err = await client.get("/api/v1/nodes/n1").then(() => undefined, (e: unknown) => e);
    expect((err as ApiError).reason).toBe("ConnectionFailed");
    expect((err as ApiError).message).toStartWith("GET /api/v1/nodes/n1: cannot reach https://127.0.0.1:1: ");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("a list of a few megabytes comes through whole", async () => {
    const stop = new AbortController();
    const client = createApiClient(config(), { qps: -1, http2: true, signal: stop.signal });
    const list = await client.list<{ metadata: { name: string } }>("/api/v1/pods");
    expect(list.items.length).toBe(2000);
    expect(list.items[1999]!.metadata.name).toBe("p1999");
    expect(list.metadata.resourceVersion).toBe("9");
    stop.abort();
  });
});
